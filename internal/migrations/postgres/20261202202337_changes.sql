-- +goose Up
-- modify "servers" table
ALTER TABLE "servers" ADD COLUMN "name_folded" character varying NOT NULL DEFAULT '';
-- create index "server_name_folded" to table: "servers"
CREATE INDEX "server_name_folded" ON "servers" ("name_folded");

-- +goose Down
-- reverse: create index "server_name_folded" to table: "servers"
DROP INDEX "server_name_folded";
-- reverse: modify "servers" table
ALTER TABLE "servers" DROP COLUMN "name_folded";
