-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_pin_revisions" table
CREATE TABLE `new_pin_revisions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `revision` integer NOT NULL, `snapshot_id` integer NOT NULL, `spec_version` text NOT NULL, `tool_definition_hash` text NOT NULL, `schema_hash` text NOT NULL, `instructions_hash` text NOT NULL, `contract_hash` text NOT NULL DEFAULT (''), `prompts_hash` text NOT NULL DEFAULT (''), `resources_hash` text NOT NULL DEFAULT (''), `tools` json NOT NULL, `created_by` text NOT NULL, `reason` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `version_id` integer NOT NULL, CONSTRAINT `pin_revisions_versions_pin_revisions` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "pin_revisions" to new temporary table "new_pin_revisions"
INSERT INTO `new_pin_revisions` (`id`, `revision`, `snapshot_id`, `spec_version`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `contract_hash`, `tools`, `created_by`, `reason`, `created_at`, `version_id`) SELECT `id`, `revision`, `snapshot_id`, `spec_version`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `contract_hash`, `tools`, `created_by`, `reason`, `created_at`, `version_id` FROM `pin_revisions`;
-- drop "pin_revisions" table after copying rows
DROP TABLE `pin_revisions`;
-- rename temporary table "new_pin_revisions" to "pin_revisions"
ALTER TABLE `new_pin_revisions` RENAME TO `pin_revisions`;
-- create index "pinrevision_version_id_revision" to table: "pin_revisions"
CREATE UNIQUE INDEX `pinrevision_version_id_revision` ON `pin_revisions` (`version_id`, `revision`);
-- add column "prompts" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` ADD COLUMN `prompts` blob NULL;
-- add column "resources" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` ADD COLUMN `resources` blob NULL;
-- add column "resource_templates" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` ADD COLUMN `resource_templates` blob NULL;
-- create "new_scans" table
CREATE TABLE `new_scans` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `trigger` text NOT NULL, `requested_by` text NOT NULL DEFAULT (''), `replica` text NOT NULL DEFAULT (''), `started_at` datetime NOT NULL, `finished_at` datetime NULL, `outcome` text NOT NULL DEFAULT ('running'), `error` text NOT NULL DEFAULT (''), `error_kind` text NOT NULL DEFAULT (''), `tool_definition_hash` text NOT NULL DEFAULT (''), `schema_hash` text NOT NULL DEFAULT (''), `instructions_hash` text NOT NULL DEFAULT (''), `prompts_hash` text NOT NULL DEFAULT (''), `resources_hash` text NOT NULL DEFAULT (''), `tools_file` blob NULL, `initialize_result` blob NULL, `drift_event_id` integer NULL, `artifact_digest` text NOT NULL DEFAULT (''), `digest_source` text NOT NULL DEFAULT (''), `protocol_versions` json NULL, `readings` blob NULL, `version_id` integer NOT NULL, CONSTRAINT `scans_versions_scans` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "scans" to new temporary table "new_scans"
INSERT INTO `new_scans` (`id`, `trigger`, `requested_by`, `replica`, `started_at`, `finished_at`, `outcome`, `error`, `error_kind`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `tools_file`, `initialize_result`, `drift_event_id`, `artifact_digest`, `digest_source`, `protocol_versions`, `readings`, `version_id`) SELECT `id`, `trigger`, `requested_by`, `replica`, `started_at`, `finished_at`, `outcome`, `error`, `error_kind`, `tool_definition_hash`, `schema_hash`, `instructions_hash`, `tools_file`, `initialize_result`, `drift_event_id`, `artifact_digest`, `digest_source`, `protocol_versions`, `readings`, `version_id` FROM `scans`;
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
-- reverse: add column "resource_templates" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` DROP COLUMN `resource_templates`;
-- reverse: add column "resources" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` DROP COLUMN `resources`;
-- reverse: add column "prompts" to table: "tool_snapshots"
ALTER TABLE `tool_snapshots` DROP COLUMN `prompts`;
-- reverse: create index "pinrevision_version_id_revision" to table: "pin_revisions"
DROP INDEX `pinrevision_version_id_revision`;
-- reverse: create "new_pin_revisions" table
DROP TABLE `new_pin_revisions`;
