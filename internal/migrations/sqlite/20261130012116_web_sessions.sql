-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_principals" table
CREATE TABLE `new_principals` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL, `role` text NOT NULL, `namespaces` json NULL, `env_labels` json NULL, `password_hash` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL);
-- copy rows from old table "principals" to new temporary table "new_principals"
INSERT INTO `new_principals` (`id`, `name`, `role`, `namespaces`, `env_labels`, `created_at`) SELECT `id`, `name`, `role`, `namespaces`, `env_labels`, `created_at` FROM `principals`;
-- drop "principals" table after copying rows
DROP TABLE `principals`;
-- rename temporary table "new_principals" to "principals"
ALTER TABLE `new_principals` RENAME TO `principals`;
-- create index "principals_name_key" to table: "principals"
CREATE UNIQUE INDEX `principals_name_key` ON `principals` (`name`);
-- create "web_sessions" table
CREATE TABLE `web_sessions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `token_hash` text NOT NULL, `csrf_token` text NOT NULL, `remote` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `expires_at` datetime NOT NULL, `last_seen_at` datetime NOT NULL, `principal_id` integer NOT NULL, CONSTRAINT `web_sessions_principals_web_sessions` FOREIGN KEY (`principal_id`) REFERENCES `principals` (`id`) ON DELETE NO ACTION);
-- create index "web_sessions_token_hash_key" to table: "web_sessions"
CREATE UNIQUE INDEX `web_sessions_token_hash_key` ON `web_sessions` (`token_hash`);
-- create index "websession_expires_at" to table: "web_sessions"
CREATE INDEX `websession_expires_at` ON `web_sessions` (`expires_at`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "websession_expires_at" to table: "web_sessions"
DROP INDEX `websession_expires_at`;
-- reverse: create index "web_sessions_token_hash_key" to table: "web_sessions"
DROP INDEX `web_sessions_token_hash_key`;
-- reverse: create "web_sessions" table
DROP TABLE `web_sessions`;
-- reverse: create index "principals_name_key" to table: "principals"
DROP INDEX `principals_name_key`;
-- reverse: create "new_principals" table
DROP TABLE `new_principals`;
