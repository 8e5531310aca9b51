-- +goose Up
-- modify "pin_revisions" table
ALTER TABLE "pin_revisions" ADD COLUMN "prompts" jsonb NULL;

-- +goose Down
-- reverse: modify "pin_revisions" table
ALTER TABLE "pin_revisions" DROP COLUMN "prompts";
