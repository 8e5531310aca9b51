-- +goose Up
-- create "host_checks" table
CREATE TABLE `host_checks` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `principal` text NOT NULL, `server_name` text NOT NULL, `version` text NOT NULL DEFAULT (''), `version_id` integer NULL, `pin_revision` integer NOT NULL DEFAULT (0), `verdict` text NOT NULL, `action` text NOT NULL DEFAULT (''), `observed_digest` text NOT NULL, `observed_tool_definition_hash` text NOT NULL DEFAULT (''), `tools` blob NOT NULL, `initialize_result` blob NULL, `request_id` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL);
-- create index "hostcheck_server_name_created_at" to table: "host_checks"
CREATE INDEX `hostcheck_server_name_created_at` ON `host_checks` (`server_name`, `created_at`);
-- create index "hostcheck_version_id" to table: "host_checks"
CREATE INDEX `hostcheck_version_id` ON `host_checks` (`version_id`);

-- +goose Down
-- reverse: create index "hostcheck_version_id" to table: "host_checks"
DROP INDEX `hostcheck_version_id`;
-- reverse: create index "hostcheck_server_name_created_at" to table: "host_checks"
DROP INDEX `hostcheck_server_name_created_at`;
-- reverse: create "host_checks" table
DROP TABLE `host_checks`;
