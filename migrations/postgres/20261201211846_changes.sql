-- +goose Up
-- modify "scans" table
ALTER TABLE "scans" ADD COLUMN "artifact_digest" character varying NOT NULL DEFAULT '', ADD COLUMN "digest_source" character varying NOT NULL DEFAULT '';

-- +goose Down
-- reverse: modify "scans" table
ALTER TABLE "scans" DROP COLUMN "digest_source", DROP COLUMN "artifact_digest";
