-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_scans" table
CREATE TABLE `new_scans` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `trigger` text NOT NULL, `requested_by` text NOT NULL DEFAULT (''), `replica` text NOT NULL DEFAULT (''), `started_at` datetime NOT NULL, `finished_at` datetime NULL, `outcome` text NOT NULL DEFAULT ('running'), `error` text NOT NULL DEFAULT (''), `error_kind` text NOT NULL DEFAULT (''), `tool_definition_hash` text NOT NULL DEFAULT (''), `schema_hash` text NOT NULL DEFAULT (''), `instructions_hash` text NOT NULL DEFAULT (''), `tools_file` blob NULL, `initialize_result` blob NULL, `drift_event_id` integer NULL, `version_id` integer NOT NULL, CONSTRAINT `scans_versions_scans` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "scans" to new temporary table "new_scans"
INSERT INTO `new_scans` (`id`, `trigger`, `requested_by`, `started_at`, `finished_at`, `outcome`, `error`, `error_kind`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `tools_file`, `initialize_result`, `drift_event_id`, `version_id`) SELECT `id`, `trigger`, `requested_by`, `started_at`, `finished_at`, `outcome`, `error`, `error_kind`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `tools_file`, `initialize_result`, `drift_event_id`, `version_id` FROM `scans`;
-- drop "scans" table after copying rows
DROP TABLE `scans`;
-- rename temporary table "new_scans" to "scans"
ALTER TABLE `new_scans` RENAME TO `scans`;
-- create index "scan_version_id_started_at" to table: "scans"
CREATE INDEX `scan_version_id_started_at` ON `scans` (`version_id`, `started_at`);
-- create "scan_leases" table
CREATE TABLE `scan_leases` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `due_at` datetime NOT NULL, `holder` text NOT NULL DEFAULT (''), `expires_at` datetime NULL, `scan_id` integer NULL, `version_id` integer NOT NULL, CONSTRAINT `scan_leases_versions_scan_lease` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "scan_leases_version_id_key" to table: "scan_leases"
CREATE UNIQUE INDEX `scan_leases_version_id_key` ON `scan_leases` (`version_id`);
-- create index "scanlease_due_at" to table: "scan_leases"
CREATE INDEX `scanlease_due_at` ON `scan_leases` (`due_at`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "scanlease_due_at" to table: "scan_leases"
DROP INDEX `scanlease_due_at`;
-- reverse: create index "scan_leases_version_id_key" to table: "scan_leases"
DROP INDEX `scan_leases_version_id_key`;
-- reverse: create "scan_leases" table
DROP TABLE `scan_leases`;
-- reverse: create index "scan_version_id_started_at" to table: "scans"
DROP INDEX `scan_version_id_started_at`;
-- reverse: create "new_scans" table
DROP TABLE `new_scans`;
