-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_scans" table
CREATE TABLE `new_scans` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `trigger` text NOT NULL, `requested_by` text NOT NULL DEFAULT (''), `replica` text NOT NULL DEFAULT (''), `started_at` datetime NOT NULL, `finished_at` datetime NULL, `outcome` text NOT NULL DEFAULT ('running'), `error` text NOT NULL DEFAULT (''), `error_kind` text NOT NULL DEFAULT (''), `tool_definition_hash` text NOT NULL DEFAULT (''), `schema_hash` text NOT NULL DEFAULT (''), `instructions_hash` text NOT NULL DEFAULT (''), `tools_file` blob NULL, `initialize_result` blob NULL, `drift_event_id` integer NULL, `artifact_digest` text NOT NULL DEFAULT (''), `digest_source` text NOT NULL DEFAULT (''), `version_id` integer NOT NULL, CONSTRAINT `scans_versions_scans` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "scans" to new temporary table "new_scans"
INSERT INTO `new_scans` (`id`, `trigger`, `requested_by`, `replica`, `started_at`, `finished_at`, `outcome`, `error`, `error_kind`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `tools_file`, `initialize_result`, `drift_event_id`, `version_id`) SELECT `id`, `trigger`, `requested_by`, `replica`, `started_at`, `finished_at`, `outcome`, `error`, `error_kind`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `tools_file`, `initialize_result`, `drift_event_id`, `version_id` FROM `scans`;
-- drop "scans" table after copying rows
DROP TABLE `scans`;
-- rename temporary table "new_scans" to "scans"
ALTER TABLE `new_scans` RENAME TO `scans`;
-- create index "scan_version_id_started_at" to table: "scans"
CREATE INDEX `scan_version_id_started_at` ON `scans` (`version_id`, `started_at`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "scan_version_id_started_at" to table: "scans"
DROP INDEX `scan_version_id_started_at`;
-- reverse: create "new_scans" table
DROP TABLE `new_scans`;
