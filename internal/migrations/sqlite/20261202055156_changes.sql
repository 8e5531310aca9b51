-- +goose Up
-- create "receipts" table
CREATE TABLE `receipts` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `receipt_id` text NOT NULL, `principal` text NOT NULL, `server_name` text NOT NULL, `version` text NOT NULL, `pin_revision` integer NOT NULL DEFAULT (0), `tool` text NOT NULL, `tool_hash` text NOT NULL DEFAULT (''), `arguments_digest` text NOT NULL, `idempotency_key` text NOT NULL DEFAULT (''), `started_at` datetime NOT NULL, `ended_at` datetime NOT NULL, `outcome` text NOT NULL, `reason` text NOT NULL DEFAULT (''), `result_digest` text NOT NULL DEFAULT (''), `findings` json NULL, `received_at` datetime NOT NULL);
-- create index "receipts_receipt_id_key" to table: "receipts"
CREATE UNIQUE INDEX `receipts_receipt_id_key` ON `receipts` (`receipt_id`);
-- create index "receipt_server_name_version_received_at" to table: "receipts"
CREATE INDEX `receipt_server_name_version_received_at` ON `receipts` (`server_name`, `version`, `received_at`);
-- create index "receipt_received_at" to table: "receipts"
CREATE INDEX `receipt_received_at` ON `receipts` (`received_at`);

-- +goose Down
-- reverse: create index "receipt_received_at" to table: "receipts"
DROP INDEX `receipt_received_at`;
-- reverse: create index "receipt_server_name_version_received_at" to table: "receipts"
DROP INDEX `receipt_server_name_version_received_at`;
-- reverse: create index "receipts_receipt_id_key" to table: "receipts"
DROP INDEX `receipts_receipt_id_key`;
-- reverse: create "receipts" table
DROP TABLE `receipts`;
