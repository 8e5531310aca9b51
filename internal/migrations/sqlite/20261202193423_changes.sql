-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_versions" table
CREATE TABLE `new_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `version` text NOT NULL, `state` text NOT NULL DEFAULT ('pending_review'), `state_reason` text NOT NULL DEFAULT (''), `server_json` blob NOT NULL, `description` text NOT NULL DEFAULT (''), `submitted_by` text NOT NULL, `submitted_at` datetime NOT NULL, `state_changed_at` datetime NOT NULL, `pin_revision` integer NOT NULL DEFAULT (1), `request_hash` text NOT NULL DEFAULT (''), `contract` blob NULL, `contract_source` text NOT NULL DEFAULT ('default'), `contract_raw` blob NULL, `quarantine_kind` text NOT NULL DEFAULT (''), `quarantine_drift_id` integer NULL, `live_source` text NOT NULL DEFAULT (''), `status` text NOT NULL DEFAULT ('active'), `status_message` text NOT NULL DEFAULT (''), `status_changed_at` datetime NULL, `server_id` integer NOT NULL, CONSTRAINT `versions_servers_versions` FOREIGN KEY (`server_id`) REFERENCES `servers` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "versions" to new temporary table "new_versions"
INSERT INTO `new_versions` (`id`, `version`, `state`, `state_reason`, `server_json`, `description`, `submitted_by`, `submitted_at`, `state_changed_at`, `pin_revision`, `request_hash`, `contract`, `contract_source`, `contract_raw`, `quarantine_kind`, `quarantine_drift_id`, `live_source`, `server_id`) SELECT `id`, `version`, `state`, `state_reason`, `server_json`, `description`, `submitted_by`, `submitted_at`, `state_changed_at`, `pin_revision`, `request_hash`, `contract`, `contract_source`, `contract_raw`, `quarantine_kind`, `quarantine_drift_id`, `live_source`, `server_id` FROM `versions`;
-- drop "versions" table after copying rows
DROP TABLE `versions`;
-- rename temporary table "new_versions" to "versions"
ALTER TABLE `new_versions` RENAME TO `versions`;
-- create index "version_server_id_version" to table: "versions"
CREATE UNIQUE INDEX `version_server_id_version` ON `versions` (`server_id`, `version`);
-- create index "version_state" to table: "versions"
CREATE INDEX `version_state` ON `versions` (`state`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "version_state" to table: "versions"
DROP INDEX `version_state`;
-- reverse: create index "version_server_id_version" to table: "versions"
DROP INDEX `version_server_id_version`;
-- reverse: create "new_versions" table
DROP TABLE `new_versions`;
