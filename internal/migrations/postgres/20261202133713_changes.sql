-- +goose Up
-- modify "pin_revisions" table
ALTER TABLE "pin_revisions" ADD COLUMN "prompts_hash" character varying NOT NULL DEFAULT '', ADD COLUMN "resources_hash" character varying NOT NULL DEFAULT '';
-- modify "scans" table
ALTER TABLE "scans" ADD COLUMN "prompts_hash" character varying NOT NULL DEFAULT '', ADD COLUMN "resources_hash" character varying NOT NULL DEFAULT '';
-- modify "tool_snapshots" table
ALTER TABLE "tool_snapshots" ADD COLUMN "prompts" bytea NULL, ADD COLUMN "resources" bytea NULL, ADD COLUMN "resource_templates" bytea NULL;

-- +goose Down
-- reverse: modify "tool_snapshots" table
ALTER TABLE "tool_snapshots" DROP COLUMN "resource_templates", DROP COLUMN "resources", DROP COLUMN "prompts";
-- reverse: modify "scans" table
ALTER TABLE "scans" DROP COLUMN "resources_hash", DROP COLUMN "prompts_hash";
-- reverse: modify "pin_revisions" table
ALTER TABLE "pin_revisions" DROP COLUMN "resources_hash", DROP COLUMN "prompts_hash";
