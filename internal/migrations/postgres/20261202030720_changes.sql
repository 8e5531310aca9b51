-- +goose Up
-- modify "findings" table
ALTER TABLE "findings" ADD COLUMN "scan_id" bigint NULL, ADD COLUMN "resolved_by_drift" bigint NULL, ADD COLUMN "resolved_at" timestamptz NULL;

-- +goose Down
-- reverse: modify "findings" table
ALTER TABLE "findings" DROP COLUMN "resolved_at", DROP COLUMN "resolved_by_drift", DROP COLUMN "scan_id";
