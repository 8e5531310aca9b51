-- +goose Up
-- add column "scan_id" to table: "findings"
ALTER TABLE `findings` ADD COLUMN `scan_id` integer NULL;
-- add column "resolved_by_drift" to table: "findings"
ALTER TABLE `findings` ADD COLUMN `resolved_by_drift` integer NULL;
-- add column "resolved_at" to table: "findings"
ALTER TABLE `findings` ADD COLUMN `resolved_at` datetime NULL;

-- +goose Down
-- reverse: add column "resolved_at" to table: "findings"
ALTER TABLE `findings` DROP COLUMN `resolved_at`;
-- reverse: add column "resolved_by_drift" to table: "findings"
ALTER TABLE `findings` DROP COLUMN `resolved_by_drift`;
-- reverse: add column "scan_id" to table: "findings"
ALTER TABLE `findings` DROP COLUMN `scan_id`;
