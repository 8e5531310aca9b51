-- +goose Up
-- modify "findings" table
ALTER TABLE "findings" ADD COLUMN "span_start" bigint NOT NULL DEFAULT 0, ADD COLUMN "span_end" bigint NOT NULL DEFAULT 0;

-- +goose Down
-- reverse: modify "findings" table
ALTER TABLE "findings" DROP COLUMN "span_end", DROP COLUMN "span_start";
