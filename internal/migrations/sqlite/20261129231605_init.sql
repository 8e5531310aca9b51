-- +goose Up
-- create "attestations" table
CREATE TABLE `attestations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `package_index` integer NOT NULL, `package_ref` text NOT NULL, `artifact_digest` text NOT NULL, `digest_source` text NOT NULL, `bundle` blob NOT NULL, `bundle_digest` text NOT NULL, `verified` bool NOT NULL DEFAULT (false), `receipt` blob NULL, `error` text NOT NULL DEFAULT (''), `policy_digest` text NOT NULL DEFAULT (''), `checked_at` datetime NOT NULL, `added_by` text NOT NULL, `created_at` datetime NOT NULL, `version_id` integer NOT NULL, CONSTRAINT `attestations_versions_attestations` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "attestation_version_id_package_index" to table: "attestations"
CREATE INDEX `attestation_version_id_package_index` ON `attestations` (`version_id`, `package_index`);
-- create "audit_events" table
CREATE TABLE `audit_events` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `seq` integer NOT NULL, `occurred_at` datetime NOT NULL, `actor` text NOT NULL, `action` text NOT NULL, `subject` text NOT NULL, `before` text NOT NULL DEFAULT (''), `after` text NOT NULL DEFAULT (''), `reason` text NOT NULL DEFAULT (''), `request_id` text NOT NULL DEFAULT (''), `details` text NOT NULL DEFAULT (''), `prev_hash` text NOT NULL, `hash` text NOT NULL);
-- create index "audit_events_seq_key" to table: "audit_events"
CREATE UNIQUE INDEX `audit_events_seq_key` ON `audit_events` (`seq`);
-- create index "auditevent_subject" to table: "audit_events"
CREATE INDEX `auditevent_subject` ON `audit_events` (`subject`);
-- create index "auditevent_actor" to table: "audit_events"
CREATE INDEX `auditevent_actor` ON `audit_events` (`actor`);
-- create index "auditevent_action" to table: "audit_events"
CREATE INDEX `auditevent_action` ON `audit_events` (`action`);
-- create "audit_heads" table
CREATE TABLE `audit_heads` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `seq` integer NOT NULL DEFAULT (0), `hash` text NOT NULL DEFAULT (''));
-- create "drift_events" table
CREATE TABLE `drift_events` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `scan_id` integer NOT NULL, `pin_revision` integer NOT NULL, `action` text NOT NULL, `changes` json NOT NULL, `status` text NOT NULL DEFAULT ('open'), `resolved_by` text NOT NULL DEFAULT (''), `resolution_reason` text NOT NULL DEFAULT (''), `resolved_at` datetime NULL, `created_at` datetime NOT NULL, `version_id` integer NOT NULL, CONSTRAINT `drift_events_versions_drift_events` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "driftevent_version_id" to table: "drift_events"
CREATE INDEX `driftevent_version_id` ON `drift_events` (`version_id`);
-- create "findings" table
CREATE TABLE `findings` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `source` text NOT NULL, `kind` text NOT NULL, `severity` text NOT NULL, `tool` text NOT NULL DEFAULT (''), `pointer` text NOT NULL DEFAULT (''), `message` text NOT NULL, `evidence` text NOT NULL DEFAULT (''), `widening_id` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `version_id` integer NOT NULL, CONSTRAINT `findings_versions_findings` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "finding_version_id" to table: "findings"
CREATE INDEX `finding_version_id` ON `findings` (`version_id`);
-- create "idempotency_keys" table
CREATE TABLE `idempotency_keys` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `principal` text NOT NULL, `key` text NOT NULL, `request_hash` text NOT NULL, `version_id` integer NOT NULL, `created_at` datetime NOT NULL);
-- create index "idempotencykey_principal_key" to table: "idempotency_keys"
CREATE UNIQUE INDEX `idempotencykey_principal_key` ON `idempotency_keys` (`principal`, `key`);
-- create "pin_revisions" table
CREATE TABLE `pin_revisions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `revision` integer NOT NULL, `snapshot_id` integer NOT NULL, `spec_version` text NOT NULL, `tool_definition_hash` text NOT NULL, `schema_hash` text NOT NULL, `instructions_hash` text NOT NULL, `contract_hash` text NOT NULL DEFAULT (''), `tools` json NOT NULL, `created_by` text NOT NULL, `reason` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `version_id` integer NOT NULL, CONSTRAINT `pin_revisions_versions_pin_revisions` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "pinrevision_version_id_revision" to table: "pin_revisions"
CREATE UNIQUE INDEX `pinrevision_version_id_revision` ON `pin_revisions` (`version_id`, `revision`);
-- create "principals" table
CREATE TABLE `principals` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL, `role` text NOT NULL, `namespaces` json NULL, `env_labels` json NULL, `created_at` datetime NOT NULL);
-- create index "principals_name_key" to table: "principals"
CREATE UNIQUE INDEX `principals_name_key` ON `principals` (`name`);
-- create "review_decisions" table
CREATE TABLE `review_decisions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `action` text NOT NULL, `from_state` text NOT NULL, `to_state` text NOT NULL, `actor` text NOT NULL, `reason` text NOT NULL, `request_id` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `version_id` integer NOT NULL, CONSTRAINT `review_decisions_versions_decisions` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "reviewdecision_version_id" to table: "review_decisions"
CREATE INDEX `reviewdecision_version_id` ON `review_decisions` (`version_id`);
-- create "scans" table
CREATE TABLE `scans` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `trigger` text NOT NULL, `requested_by` text NOT NULL DEFAULT (''), `started_at` datetime NOT NULL, `finished_at` datetime NULL, `outcome` text NOT NULL DEFAULT ('running'), `error` text NOT NULL DEFAULT (''), `error_kind` text NOT NULL DEFAULT (''), `tool_definition_hash` text NOT NULL DEFAULT (''), `schema_hash` text NOT NULL DEFAULT (''), `instructions_hash` text NOT NULL DEFAULT (''), `tools_file` blob NULL, `initialize_result` blob NULL, `drift_event_id` integer NULL, `version_id` integer NOT NULL, CONSTRAINT `scans_versions_scans` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "scan_version_id_started_at" to table: "scans"
CREATE INDEX `scan_version_id_started_at` ON `scans` (`version_id`, `started_at`);
-- create "servers" table
CREATE TABLE `servers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL, `namespace` text NOT NULL, `owner` text NOT NULL, `description` text NOT NULL DEFAULT (''), `title` text NOT NULL DEFAULT (''), `latest_version` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL);
-- create index "servers_name_key" to table: "servers"
CREATE UNIQUE INDEX `servers_name_key` ON `servers` (`name`);
-- create index "server_namespace" to table: "servers"
CREATE INDEX `server_namespace` ON `servers` (`namespace`);
-- create index "server_owner" to table: "servers"
CREATE INDEX `server_owner` ON `servers` (`owner`);
-- create "server_policies" table
CREATE TABLE `server_policies` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `require_contract` bool NOT NULL DEFAULT (false), `attestation` blob NULL, `updated_at` datetime NOT NULL, `updated_by` text NOT NULL, `server_id` integer NOT NULL, CONSTRAINT `server_policies_servers_policy` FOREIGN KEY (`server_id`) REFERENCES `servers` (`id`) ON DELETE NO ACTION);
-- create index "server_policies_server_id_key" to table: "server_policies"
CREATE UNIQUE INDEX `server_policies_server_id_key` ON `server_policies` (`server_id`);
-- create "tokens" table
CREATE TABLE `tokens` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `public_id` text NOT NULL, `name` text NOT NULL DEFAULT (''), `secret_hash` text NOT NULL, `created_at` datetime NOT NULL, `expires_at` datetime NULL, `revoked_at` datetime NULL, `last_used_at` datetime NULL, `principal_id` integer NOT NULL, CONSTRAINT `tokens_principals_tokens` FOREIGN KEY (`principal_id`) REFERENCES `principals` (`id`) ON DELETE NO ACTION);
-- create index "tokens_public_id_key" to table: "tokens"
CREATE UNIQUE INDEX `tokens_public_id_key` ON `tokens` (`public_id`);
-- create index "tokens_secret_hash_key" to table: "tokens"
CREATE UNIQUE INDEX `tokens_secret_hash_key` ON `tokens` (`secret_hash`);
-- create index "token_principal_id" to table: "tokens"
CREATE INDEX `token_principal_id` ON `tokens` (`principal_id`);
-- create "tools" table
CREATE TABLE `tools` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `position` integer NOT NULL, `name` text NOT NULL, `raw` blob NOT NULL, `tool_hash` text NOT NULL, `snapshot_id` integer NOT NULL, CONSTRAINT `tools_tool_snapshots_tools` FOREIGN KEY (`snapshot_id`) REFERENCES `tool_snapshots` (`id`) ON DELETE NO ACTION);
-- create index "tool_snapshot_id_position" to table: "tools"
CREATE UNIQUE INDEX `tool_snapshot_id_position` ON `tools` (`snapshot_id`, `position`);
-- create "tool_snapshots" table
CREATE TABLE `tool_snapshots` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `source` text NOT NULL DEFAULT ('submission'), `protocol_version` text NOT NULL DEFAULT (''), `server_info` blob NULL, `instructions` text NULL, `created_at` datetime NOT NULL, `version_id` integer NOT NULL, CONSTRAINT `tool_snapshots_versions_snapshots` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- create index "toolsnapshot_version_id" to table: "tool_snapshots"
CREATE INDEX `toolsnapshot_version_id` ON `tool_snapshots` (`version_id`);
-- create "versions" table
CREATE TABLE `versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `version` text NOT NULL, `state` text NOT NULL DEFAULT ('pending_review'), `state_reason` text NOT NULL DEFAULT (''), `server_json` blob NOT NULL, `description` text NOT NULL DEFAULT (''), `submitted_by` text NOT NULL, `submitted_at` datetime NOT NULL, `state_changed_at` datetime NOT NULL, `pin_revision` integer NOT NULL DEFAULT (1), `request_hash` text NOT NULL DEFAULT (''), `contract` blob NULL, `contract_source` text NOT NULL DEFAULT ('default'), `contract_raw` blob NULL, `quarantine_kind` text NOT NULL DEFAULT (''), `quarantine_drift_id` integer NULL, `live_source` text NOT NULL DEFAULT (''), `server_id` integer NOT NULL, CONSTRAINT `versions_servers_versions` FOREIGN KEY (`server_id`) REFERENCES `servers` (`id`) ON DELETE NO ACTION);
-- create index "version_server_id_version" to table: "versions"
CREATE UNIQUE INDEX `version_server_id_version` ON `versions` (`server_id`, `version`);
-- create index "version_state" to table: "versions"
CREATE INDEX `version_state` ON `versions` (`state`);

-- +goose Down
-- reverse: create index "version_state" to table: "versions"
DROP INDEX `version_state`;
-- reverse: create index "version_server_id_version" to table: "versions"
DROP INDEX `version_server_id_version`;
-- reverse: create "versions" table
DROP TABLE `versions`;
-- reverse: create index "toolsnapshot_version_id" to table: "tool_snapshots"
DROP INDEX `toolsnapshot_version_id`;
-- reverse: create "tool_snapshots" table
DROP TABLE `tool_snapshots`;
-- reverse: create index "tool_snapshot_id_position" to table: "tools"
DROP INDEX `tool_snapshot_id_position`;
-- reverse: create "tools" table
DROP TABLE `tools`;
-- reverse: create index "token_principal_id" to table: "tokens"
DROP INDEX `token_principal_id`;
-- reverse: create index "tokens_secret_hash_key" to table: "tokens"
DROP INDEX `tokens_secret_hash_key`;
-- reverse: create index "tokens_public_id_key" to table: "tokens"
DROP INDEX `tokens_public_id_key`;
-- reverse: create "tokens" table
DROP TABLE `tokens`;
-- reverse: create index "server_policies_server_id_key" to table: "server_policies"
DROP INDEX `server_policies_server_id_key`;
-- reverse: create "server_policies" table
DROP TABLE `server_policies`;
-- reverse: create index "server_owner" to table: "servers"
DROP INDEX `server_owner`;
-- reverse: create index "server_namespace" to table: "servers"
DROP INDEX `server_namespace`;
-- reverse: create index "servers_name_key" to table: "servers"
DROP INDEX `servers_name_key`;
-- reverse: create "servers" table
DROP TABLE `servers`;
-- reverse: create index "scan_version_id_started_at" to table: "scans"
DROP INDEX `scan_version_id_started_at`;
-- reverse: create "scans" table
DROP TABLE `scans`;
-- reverse: create index "reviewdecision_version_id" to table: "review_decisions"
DROP INDEX `reviewdecision_version_id`;
-- reverse: create "review_decisions" table
DROP TABLE `review_decisions`;
-- reverse: create index "principals_name_key" to table: "principals"
DROP INDEX `principals_name_key`;
-- reverse: create "principals" table
DROP TABLE `principals`;
-- reverse: create index "pinrevision_version_id_revision" to table: "pin_revisions"
DROP INDEX `pinrevision_version_id_revision`;
-- reverse: create "pin_revisions" table
DROP TABLE `pin_revisions`;
-- reverse: create index "idempotencykey_principal_key" to table: "idempotency_keys"
DROP INDEX `idempotencykey_principal_key`;
-- reverse: create "idempotency_keys" table
DROP TABLE `idempotency_keys`;
-- reverse: create index "finding_version_id" to table: "findings"
DROP INDEX `finding_version_id`;
-- reverse: create "findings" table
DROP TABLE `findings`;
-- reverse: create index "driftevent_version_id" to table: "drift_events"
DROP INDEX `driftevent_version_id`;
-- reverse: create "drift_events" table
DROP TABLE `drift_events`;
-- reverse: create "audit_heads" table
DROP TABLE `audit_heads`;
-- reverse: create index "auditevent_action" to table: "audit_events"
DROP INDEX `auditevent_action`;
-- reverse: create index "auditevent_actor" to table: "audit_events"
DROP INDEX `auditevent_actor`;
-- reverse: create index "auditevent_subject" to table: "audit_events"
DROP INDEX `auditevent_subject`;
-- reverse: create index "audit_events_seq_key" to table: "audit_events"
DROP INDEX `audit_events_seq_key`;
-- reverse: create "audit_events" table
DROP TABLE `audit_events`;
-- reverse: create index "attestation_version_id_package_index" to table: "attestations"
DROP INDEX `attestation_version_id_package_index`;
-- reverse: create "attestations" table
DROP TABLE `attestations`;
