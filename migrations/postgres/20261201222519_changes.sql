-- +goose Up
-- modify "attestations" table
ALTER TABLE "attestations" ADD COLUMN "pending" boolean NOT NULL DEFAULT false, ADD COLUMN "confirmed_by" character varying NOT NULL DEFAULT '', ADD COLUMN "confirmed_at" timestamptz NULL;
-- modify "scans" table
ALTER TABLE "scans" ADD COLUMN "artifact_digest" character varying NOT NULL DEFAULT '', ADD COLUMN "digest_source" character varying NOT NULL DEFAULT '';

-- +goose Down
-- reverse: modify "scans" table
ALTER TABLE "scans" DROP COLUMN "digest_source", DROP COLUMN "artifact_digest";
-- reverse: modify "attestations" table
ALTER TABLE "attestations" DROP COLUMN "confirmed_at", DROP COLUMN "confirmed_by", DROP COLUMN "pending";
