-- +goose Up
-- create "audit_checkpoints" table
CREATE TABLE `audit_checkpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `length` integer NOT NULL, `head_hash` text NOT NULL, `origin` text NOT NULL, `key_id` text NOT NULL, `note` text NOT NULL, `created_at` datetime NOT NULL);
-- create index "audit_checkpoints_length_key" to table: "audit_checkpoints"
CREATE UNIQUE INDEX `audit_checkpoints_length_key` ON `audit_checkpoints` (`length`);

-- +goose Down
-- reverse: create index "audit_checkpoints_length_key" to table: "audit_checkpoints"
DROP INDEX `audit_checkpoints_length_key`;
-- reverse: create "audit_checkpoints" table
DROP TABLE `audit_checkpoints`;
