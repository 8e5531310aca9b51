-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_principals" table
CREATE TABLE `new_principals` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL, `role` text NOT NULL, `kind` text NOT NULL DEFAULT ('account'), `namespaces` json NULL, `env_labels` json NULL, `password_hash` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL);
-- copy rows from old table "principals" to new temporary table "new_principals"
INSERT INTO `new_principals` (`id`, `name`, `role`, `namespaces`, `env_labels`, `password_hash`, `created_at`) SELECT `id`, `name`, `role`, `namespaces`, `env_labels`, `password_hash`, `created_at` FROM `principals`;
-- drop "principals" table after copying rows
DROP TABLE `principals`;
-- rename temporary table "new_principals" to "principals"
ALTER TABLE `new_principals` RENAME TO `principals`;
-- create index "principals_name_key" to table: "principals"
CREATE UNIQUE INDEX `principals_name_key` ON `principals` (`name`);
-- create "upstreams" table
CREATE TABLE `upstreams` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL, `url` text NOT NULL, `namespaces` json NOT NULL, `allow` text NOT NULL DEFAULT (''), `interval_seconds` integer NOT NULL DEFAULT (3600), `tools` text NOT NULL DEFAULT ('live'), `token_sealed` blob NULL, `key_id` text NOT NULL DEFAULT (''), `created_by` text NOT NULL, `created_at` datetime NOT NULL, `since` datetime NULL, `pass_started_at` datetime NULL, `pass_since` datetime NULL, `cursor` text NOT NULL DEFAULT (''), `lease_owner` text NOT NULL DEFAULT (''), `lease_until` datetime NULL, `last_pass_at` datetime NULL, `last_success_at` datetime NULL, `last_error` text NOT NULL DEFAULT (''), `last_counts` json NULL);
-- create index "upstreams_name_key" to table: "upstreams"
CREATE UNIQUE INDEX `upstreams_name_key` ON `upstreams` (`name`);
-- create "upstream_records" table
CREATE TABLE `upstream_records` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `upstream` text NOT NULL, `upstream_url` text NOT NULL, `server_name` text NOT NULL, `version` text NOT NULL, `content_hash` text NOT NULL, `status` text NOT NULL DEFAULT ('active'), `status_message` text NOT NULL DEFAULT (''), `published_at` datetime NULL, `upstream_updated_at` datetime NULL, `meta` blob NULL, `version_id` integer NULL, `outcome` text NOT NULL, `detail` text NOT NULL DEFAULT (''), `first_seen_at` datetime NOT NULL, `last_seen_at` datetime NOT NULL);
-- create index "upstreamrecord_upstream_server_name_version" to table: "upstream_records"
CREATE UNIQUE INDEX `upstreamrecord_upstream_server_name_version` ON `upstream_records` (`upstream`, `server_name`, `version`);
-- create index "upstreamrecord_version_id" to table: "upstream_records"
CREATE INDEX `upstreamrecord_version_id` ON `upstream_records` (`version_id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "upstreamrecord_version_id" to table: "upstream_records"
DROP INDEX `upstreamrecord_version_id`;
-- reverse: create index "upstreamrecord_upstream_server_name_version" to table: "upstream_records"
DROP INDEX `upstreamrecord_upstream_server_name_version`;
-- reverse: create "upstream_records" table
DROP TABLE `upstream_records`;
-- reverse: create index "upstreams_name_key" to table: "upstreams"
DROP INDEX `upstreams_name_key`;
-- reverse: create "upstreams" table
DROP TABLE `upstreams`;
-- reverse: create index "principals_name_key" to table: "principals"
DROP INDEX `principals_name_key`;
-- reverse: create "new_principals" table
DROP TABLE `new_principals`;
