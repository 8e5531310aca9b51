-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_servers" table
CREATE TABLE `new_servers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL, `name_folded` text NOT NULL DEFAULT (''), `namespace` text NOT NULL, `owner` text NOT NULL, `description` text NOT NULL DEFAULT (''), `title` text NOT NULL DEFAULT (''), `latest_version` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL);
-- copy rows from old table "servers" to new temporary table "new_servers"
INSERT INTO `new_servers` (`id`, `name`, `namespace`, `owner`, `description`, `title`, `latest_version`, `created_at`, `updated_at`) SELECT `id`, `name`, `namespace`, `owner`, `description`, `title`, `latest_version`, `created_at`, `updated_at` FROM `servers`;
-- drop "servers" table after copying rows
DROP TABLE `servers`;
-- rename temporary table "new_servers" to "servers"
ALTER TABLE `new_servers` RENAME TO `servers`;
-- create index "servers_name_key" to table: "servers"
CREATE UNIQUE INDEX `servers_name_key` ON `servers` (`name`);
-- create index "server_namespace" to table: "servers"
CREATE INDEX `server_namespace` ON `servers` (`namespace`);
-- create index "server_owner" to table: "servers"
CREATE INDEX `server_owner` ON `servers` (`owner`);
-- create index "server_name_folded" to table: "servers"
CREATE INDEX `server_name_folded` ON `servers` (`name_folded`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "server_name_folded" to table: "servers"
DROP INDEX `server_name_folded`;
-- reverse: create index "server_owner" to table: "servers"
DROP INDEX `server_owner`;
-- reverse: create index "server_namespace" to table: "servers"
DROP INDEX `server_namespace`;
-- reverse: create index "servers_name_key" to table: "servers"
DROP INDEX `servers_name_key`;
-- reverse: create "new_servers" table
DROP TABLE `new_servers`;
