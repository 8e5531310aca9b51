-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_findings" table
CREATE TABLE `new_findings` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `source` text NOT NULL, `kind` text NOT NULL, `severity` text NOT NULL, `tool` text NOT NULL DEFAULT (''), `pointer` text NOT NULL DEFAULT (''), `message` text NOT NULL, `evidence` text NOT NULL DEFAULT (''), `span_start` integer NOT NULL DEFAULT (0), `span_end` integer NOT NULL DEFAULT (0), `widening_id` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `scan_id` integer NULL, `resolved_by_drift` integer NULL, `resolved_at` datetime NULL, `version_id` integer NOT NULL, CONSTRAINT `findings_versions_findings` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "findings" to new temporary table "new_findings"
INSERT INTO `new_findings` (`id`, `source`, `kind`, `severity`, `tool`, `pointer`, `message`, `evidence`, `widening_id`, `created_at`, `scan_id`, `resolved_by_drift`, `resolved_at`, `version_id`) SELECT `id`, `source`, `kind`, `severity`, `tool`, `pointer`, `message`, `evidence`, `widening_id`, `created_at`, `scan_id`, `resolved_by_drift`, `resolved_at`, `version_id` FROM `findings`;
-- drop "findings" table after copying rows
DROP TABLE `findings`;
-- rename temporary table "new_findings" to "findings"
ALTER TABLE `new_findings` RENAME TO `findings`;
-- create index "finding_version_id" to table: "findings"
CREATE INDEX `finding_version_id` ON `findings` (`version_id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "finding_version_id" to table: "findings"
DROP INDEX `finding_version_id`;
-- reverse: create "new_findings" table
DROP TABLE `new_findings`;
