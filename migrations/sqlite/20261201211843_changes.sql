-- +goose Up
-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_attestations" table
CREATE TABLE `new_attestations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `package_index` integer NOT NULL, `package_ref` text NOT NULL, `artifact_digest` text NOT NULL, `digest_source` text NOT NULL, `bundle` blob NOT NULL, `bundle_digest` text NOT NULL, `verified` bool NOT NULL DEFAULT (false), `receipt` blob NULL, `error` text NOT NULL DEFAULT (''), `policy_digest` text NOT NULL DEFAULT (''), `checked_at` datetime NOT NULL, `added_by` text NOT NULL, `created_at` datetime NOT NULL, `pending` bool NOT NULL DEFAULT (false), `confirmed_by` text NOT NULL DEFAULT (''), `confirmed_at` datetime NULL, `version_id` integer NOT NULL, CONSTRAINT `attestations_versions_attestations` FOREIGN KEY (`version_id`) REFERENCES `versions` (`id`) ON DELETE NO ACTION);
-- copy rows from old table "attestations" to new temporary table "new_attestations"
INSERT INTO `new_attestations` (`id`, `package_index`, `package_ref`, `artifact_digest`, `digest_source`, `bundle`, `bundle_digest`, `verified`, `receipt`, `error`, `policy_digest`, `checked_at`, `added_by`, `created_at`, `version_id`) SELECT `id`, `package_index`, `package_ref`, `artifact_digest`, `digest_source`, `bundle`, `bundle_digest`, `verified`, `receipt`, `error`, `policy_digest`, `checked_at`, `added_by`, `created_at`, `version_id` FROM `attestations`;
-- drop "attestations" table after copying rows
DROP TABLE `attestations`;
-- rename temporary table "new_attestations" to "attestations"
ALTER TABLE `new_attestations` RENAME TO `attestations`;
-- create index "attestation_version_id_package_index" to table: "attestations"
CREATE INDEX `attestation_version_id_package_index` ON `attestations` (`version_id`, `package_index`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- +goose Down
-- reverse: create index "attestation_version_id_package_index" to table: "attestations"
DROP INDEX `attestation_version_id_package_index`;
-- reverse: create "new_attestations" table
DROP TABLE `new_attestations`;
