-- +goose Up
-- add column "protocol_versions" to table: "scans"
ALTER TABLE `scans` ADD COLUMN `protocol_versions` json NULL;
-- add column "readings" to table: "scans"
ALTER TABLE `scans` ADD COLUMN `readings` blob NULL;

-- +goose Down
-- reverse: add column "readings" to table: "scans"
ALTER TABLE `scans` DROP COLUMN `readings`;
-- reverse: add column "protocol_versions" to table: "scans"
ALTER TABLE `scans` DROP COLUMN `protocol_versions`;
