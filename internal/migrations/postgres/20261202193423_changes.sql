-- +goose Up
-- modify "versions" table
ALTER TABLE "versions" ADD COLUMN "status" character varying NOT NULL DEFAULT 'active', ADD COLUMN "status_message" character varying NOT NULL DEFAULT '', ADD COLUMN "status_changed_at" timestamptz NULL;

-- +goose Down
-- reverse: modify "versions" table
ALTER TABLE "versions" DROP COLUMN "status_changed_at", DROP COLUMN "status_message", DROP COLUMN "status";
