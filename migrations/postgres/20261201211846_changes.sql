-- +goose Up
-- modify "attestations" table
ALTER TABLE "attestations" ADD COLUMN "pending" boolean NOT NULL DEFAULT false, ADD COLUMN "confirmed_by" character varying NOT NULL DEFAULT '', ADD COLUMN "confirmed_at" timestamptz NULL;

-- +goose Down
-- reverse: modify "attestations" table
ALTER TABLE "attestations" DROP COLUMN "confirmed_at", DROP COLUMN "confirmed_by", DROP COLUMN "pending";
