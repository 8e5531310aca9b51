-- +goose Up
-- modify "scans" table
ALTER TABLE "scans" ADD COLUMN "protocol_versions" jsonb NULL, ADD COLUMN "readings" bytea NULL;

-- +goose Down
-- reverse: modify "scans" table
ALTER TABLE "scans" DROP COLUMN "readings", DROP COLUMN "protocol_versions";
