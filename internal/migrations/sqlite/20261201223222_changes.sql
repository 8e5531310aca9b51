-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_attestations" table
CREATE TABLE `new_attestations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `package_index` integer NOT NULL, `package_ref` text NOT NULL, `artifact_digest` text NOT NULL, `digest_source` text NOT NULL, `bundle` blob NOT NULL, `bundle_digest` text NOT NULL, `verified` bool NOT NULL DEFAULT (false), `receipt` blob NULL, `error` text NOT NULL DEFAULT (''), `policy_digest` text NOT NULL DEFAULT (''), `checked_at` datetime NOT NULL, `added_by` text NOT NULL, `created_at` datetime NOT NULL, `pending` bool NOT NULL DEFAULT (false), `confirmed_by` text NOT NULL DEFAULT (''), `confirmed_at` datetime NULL, `version_id` integer NOT NULL, CONSTRAINT `attestations_versions_attestations` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "attestations" to new temporary table "new_attestations"
INSERT INTO `new_attestations` (`id`, `package_index`, `package_ref`, `artifact_digest`, `digest_source`, `bundle`, `bundle_digest`, `verified`, `receipt`, `error`, `policy_digest`, `checked_at`, `added_by`, `created_at`, `version_id`) SELECT `id`, `package_index`, `package_ref`, `artifact_digest`, `digest_source`, `bundle`, `bundle_digest`, `verified`, `receipt`, `error`, `policy_digest`, `checked_at`, `added_by`, `created_at`, `version_id` FROM `attestations`;
-- drop "attestations" table after copying rows
DROP TABLE `attestations`;
-- rename temporary table "new_attestations" to "attestations"
ALTER TABLE `new_attestations` RENAME TO `attestations`;
-- create index "attestation_version_id_package_index" to table: "attestations"
CREATE INDEX `attestation_version_id_package_index` ON `attestations` (`version_id`, `package_index`);
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
-- create "audit_checkpoints" table
CREATE TABLE `audit_checkpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `length` integer NOT NULL, `head_hash` text NOT NULL, `origin` text NOT NULL, `key_id` text NOT NULL, `note` text NOT NULL, `created_at` datetime NOT NULL);
-- create index "audit_checkpoints_length_key" to table: "audit_checkpoints"
CREATE UNIQUE INDEX `audit_checkpoints_length_key` ON `audit_checkpoints` (`length`);
-- create "pending_policies" table
CREATE TABLE `pending_policies` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `server_id` integer NOT NULL, `require_contract` bool NOT NULL DEFAULT (false), `attestation` blob NULL, `digest` text NOT NULL, `proposed_by` text NOT NULL, `proposed_at` datetime NOT NULL, `reason` text NOT NULL DEFAULT (''), `weakenings` json NOT NULL);
-- create index "pending_policies_server_id_key" to table: "pending_policies"
CREATE UNIQUE INDEX `pending_policies_server_id_key` ON `pending_policies` (`server_id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "pending_policies_server_id_key" to table: "pending_policies"
DROP INDEX `pending_policies_server_id_key`;
-- reverse: create "pending_policies" table
DROP TABLE `pending_policies`;
-- reverse: create index "audit_checkpoints_length_key" to table: "audit_checkpoints"
DROP INDEX `audit_checkpoints_length_key`;
-- reverse: create "audit_checkpoints" table
DROP TABLE `audit_checkpoints`;
-- reverse: create index "scan_version_id_started_at" to table: "scans"
DROP INDEX `scan_version_id_started_at`;
-- reverse: create "new_scans" table
DROP TABLE `new_scans`;
-- reverse: create index "attestation_version_id_package_index" to table: "attestations"
DROP INDEX `attestation_version_id_package_index`;
-- reverse: create "new_attestations" table
DROP TABLE `new_attestations`;
