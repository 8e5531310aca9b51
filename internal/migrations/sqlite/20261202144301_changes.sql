-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_scan_credentials" table
CREATE TABLE `new_scan_credentials` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `server_name` text NOT NULL, `label` text NOT NULL, `scopes` json NOT NULL, `header_names` json NOT NULL, `env_names` json NOT NULL, `origin` text NOT NULL DEFAULT (''), `package` text NOT NULL DEFAULT (''), `sealed` blob NOT NULL, `key_id` text NOT NULL, `created_by` text NOT NULL, `created_at` datetime NOT NULL);
-- copy rows from old table "scan_credentials" to new temporary table "new_scan_credentials"
INSERT INTO `new_scan_credentials` (`id`, `server_name`, `label`, `scopes`, `header_names`, `env_names`, `sealed`, `key_id`, `created_by`, `created_at`) SELECT `id`, `server_name`, `label`, `scopes`, `header_names`, `env_names`, `sealed`, `key_id`, `created_by`, `created_at` FROM `scan_credentials`;
-- drop "scan_credentials" table after copying rows
DROP TABLE `scan_credentials`;
-- rename temporary table "new_scan_credentials" to "scan_credentials"
ALTER TABLE `new_scan_credentials` RENAME TO `scan_credentials`;
-- create index "scancredential_server_name_label" to table: "scan_credentials"
CREATE UNIQUE INDEX `scancredential_server_name_label` ON `scan_credentials` (`server_name`, `label`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "scancredential_server_name_label" to table: "scan_credentials"
DROP INDEX `scancredential_server_name_label`;
-- reverse: create "new_scan_credentials" table
DROP TABLE `new_scan_credentials`;
