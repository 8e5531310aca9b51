-- +goose Up
-- add column "prompts" to table: "pin_revisions"
ALTER TABLE `pin_revisions` ADD COLUMN `prompts` json NULL;

-- +goose Down
-- reverse: add column "prompts" to table: "pin_revisions"
ALTER TABLE `pin_revisions` DROP COLUMN `prompts`;
