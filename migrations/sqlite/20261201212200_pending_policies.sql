-- +goose Up
-- create "pending_policies" table
CREATE TABLE `pending_policies` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `server_id` integer NOT NULL, `require_contract` bool NOT NULL DEFAULT (false), `attestation` blob NULL, `digest` text NOT NULL, `proposed_by` text NOT NULL, `proposed_at` datetime NOT NULL, `reason` text NOT NULL DEFAULT (''), `weakenings` json NOT NULL);
-- create index "pending_policies_server_id_key" to table: "pending_policies"
CREATE UNIQUE INDEX `pending_policies_server_id_key` ON `pending_policies` (`server_id`);

-- +goose Down
-- reverse: create index "pending_policies_server_id_key" to table: "pending_policies"
DROP INDEX `pending_policies_server_id_key`;
-- reverse: create "pending_policies" table
DROP TABLE `pending_policies`;
