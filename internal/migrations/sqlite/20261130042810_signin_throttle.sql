-- +goose Up
-- create "signin_throttles" table
CREATE TABLE `signin_throttles` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `key` text NOT NULL, `tat` datetime NOT NULL);
-- create index "signin_throttles_key_key" to table: "signin_throttles"
CREATE UNIQUE INDEX `signin_throttles_key_key` ON `signin_throttles` (`key`);
-- create index "signinthrottle_tat" to table: "signin_throttles"
CREATE INDEX `signinthrottle_tat` ON `signin_throttles` (`tat`);

-- +goose Down
-- reverse: create index "signinthrottle_tat" to table: "signin_throttles"
DROP INDEX `signinthrottle_tat`;
-- reverse: create index "signin_throttles_key_key" to table: "signin_throttles"
DROP INDEX `signin_throttles_key_key`;
-- reverse: create "signin_throttles" table
DROP TABLE `signin_throttles`;
