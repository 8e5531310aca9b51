-- +goose Up
-- modify "scan_credentials" table
ALTER TABLE "scan_credentials" ADD COLUMN "origin" character varying NOT NULL DEFAULT '', ADD COLUMN "package" character varying NOT NULL DEFAULT '';

-- +goose Down
-- reverse: modify "scan_credentials" table
ALTER TABLE "scan_credentials" DROP COLUMN "package", DROP COLUMN "origin";
