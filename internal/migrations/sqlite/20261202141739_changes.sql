-- +goose Up
-- add column "scopes" to table: "tools"
ALTER TABLE `tools` ADD COLUMN `scopes` json NULL;
-- add column "auth" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` ADD COLUMN `auth` blob NULL;
-- add column "tool_scopes" to table: "scans"
ALTER TABLE `scans` ADD COLUMN `tool_scopes` json NULL;
-- add column "auth" to table: "scans"
ALTER TABLE `scans` ADD COLUMN `auth` blob NULL;
-- create "scan_credentials" table
CREATE TABLE `scan_credentials` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `server_name` text NOT NULL, `label` text NOT NULL, `scopes` json NOT NULL, `header_names` json NOT NULL, `env_names` json NOT NULL, `sealed` blob NOT NULL, `key_id` text NOT NULL, `created_by` text NOT NULL, `created_at` datetime NOT NULL);
-- create index "scancredential_server_name_label" to table: "scan_credentials"
CREATE UNIQUE INDEX `scancredential_server_name_label` ON `scan_credentials` (`server_name`, `label`);

-- +goose Down
-- reverse: create index "scancredential_server_name_label" to table: "scan_credentials"
DROP INDEX `scancredential_server_name_label`;
-- reverse: create "scan_credentials" table
DROP TABLE `scan_credentials`;
-- reverse: add column "auth" to table: "scans"
ALTER TABLE `scans` DROP COLUMN `auth`;
-- reverse: add column "tool_scopes" to table: "scans"
ALTER TABLE `scans` DROP COLUMN `tool_scopes`;
-- reverse: add column "auth" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` DROP COLUMN `auth`;
-- reverse: add column "scopes" to table: "tools"
ALTER TABLE `tools` DROP COLUMN `scopes`;
