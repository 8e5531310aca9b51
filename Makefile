# mcpreg: `make run` serves on an SQLite file, `make test` runs every suite.
GO        ?= go
BUF       := $(GO) tool -modfile=tools/go.mod buf
# golangci-lint has its own tools module so its dependencies do not move buf's.
GOLANGCI_LINT := $(GO) tool -modfile=tools/lint/go.mod golangci-lint
GENERATED := proto/mcpreg internal/ent internal/migrations/sqlite internal/migrations/postgres internal/server/openapi
# PostgreSQL used as the dev database when generating postgres migrations, and
# by the test suites (CI starts one with .ci/postgres.sh).
MCPREG_TEST_POSTGRES_DSN ?=
MCPREG_TEST_REQUIRE_ALL  ?=
export MCPREG_TEST_POSTGRES_DSN MCPREG_TEST_REQUIRE_ALL

.PHONY: all build run replicas test test-go vet lint lint-proto lint-go generate generate-proto generate-ent generate-migrations check-generated bench detector-eval detector-model scale clean

all: build

build:
	$(GO) build -o bin/ ./cmd/...

run:
	$(GO) run ./cmd/mcpregd serve

## replicas: N=3 replicas on one database (DB=postgres://... or an SQLite
## file in replicas-data/) behind a round-robin proxy on 127.0.0.1:8080.
N  ?= 3
DB ?=
replicas:
	$(GO) run ./scripts/replicas -n $(N) $(if $(DB),-db '$(DB)')

## test: every suite. Missing outside components (PostgreSQL) are announced
## and their suites skipped, unless MCPREG_TEST_REQUIRE_ALL=1 (CI), where they fail.
test: check-generated vet lint test-go

test-go:
	$(GO) test -race -count=1 -timeout 20m ./...
	$(GO) test -count=1 -run '^TestModelRetrainsToCommitted$$' ./internal/detectoreval/

vet:
	$(GO) vet ./...
	@out=$$(find . -name '*.go' -not -path './.git/*' | xargs gofmt -l); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## lint: the protobuf API (buf) and the Go code (golangci-lint, .golangci.yml).
lint: lint-proto lint-go

lint-proto:
	$(BUF) lint

lint-go:
	$(GOLANGCI_LINT) run ./...

generate: generate-proto generate-ent generate-migrations

generate-proto:
	$(BUF) generate --path proto/mcpreg

generate-ent:
	$(GO) run ./internal/ent/entc

generate-migrations:
	@if [ -n "$(MCPREG_TEST_POSTGRES_DSN)" ]; then $(GO) run ./internal/migrations/gen; \
	elif [ "$(MCPREG_TEST_REQUIRE_ALL)" = "1" ]; then \
	  echo "MCPREG_TEST_POSTGRES_DSN is not set: cannot generate postgres migrations" >&2; exit 1; \
	else echo "***** SKIPPING postgres migrations: MCPREG_TEST_POSTGRES_DSN not set (sqlite only) *****" >&2; \
	  $(GO) run ./internal/migrations/gen -dialects sqlite3; fi

## check-generated: regenerate everything into the tree and fail if anything
## changed (compares against a copy taken first, so it works on any checkout).
check-generated:
	@snap=$$(mktemp -d); trap 'rm -rf $$snap' EXIT; \
	  for d in $(GENERATED); do mkdir -p $$snap/$$d; cp -a $$d/. $$snap/$$d/; done; \
	  $(MAKE) --no-print-directory generate >/dev/null || exit 1; \
	  fail=0; for d in $(GENERATED); do \
	    if ! diff -r $$snap/$$d $$d >/dev/null; then echo "generated code out of date: $$d (run make generate)"; diff -r $$snap/$$d $$d | head -20; fail=1; fi; \
	  done; exit $$fail

## bench: Go benchmarks (figures for the closing notes).
## detector-eval: the poisoning findings on the corpus (testdata/poisoning), per
## family, language and split.
detector-eval:
	$(GO) run ./scripts/detector-eval

## detector-model: retrain the poisoning word model on the development split
## (deterministic; commit internal/diffreview/textmodel.json).
detector-model:
	$(GO) run ./scripts/detector-model

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## scale: the fleet measurements of docs/scale.md (make test runs them at
## 2,000 servers): for each SCALE_SERVERS, a generated fleet on PostgreSQL
## (MCPREG_TEST_POSTGRES_DSN) and SQLite, every operation over REST,
## start-up and RSS, a sync from a fake upstream killed and resumed; the
## tables go to scale-results.md. Then the SIGKILLed sync at the largest size.
SCALE_SERVERS ?= 1000 10000 100000
SCALE_REPS    ?= 200
scale:
	@rm -f scale-results.md
	@for n in $(SCALE_SERVERS); do \
	  MCPREG_SCALE_SERVERS=$$n MCPREG_SCALE_REPS=$(SCALE_REPS) MCPREG_SCALE_OUT=$(CURDIR)/scale-results.md \
	    $(GO) test -count=1 -timeout 240m -run '^TestScale$$' ./scripts/scale/ || exit 1; \
	done
	MCPREG_SCALE_SERVERS=$(lastword $(SCALE_SERVERS)) $(GO) test -count=1 -timeout 240m -v -run '^TestUpstreamSyncKilledResumes$$' ./cmd/mcpregd/
	@cat scale-results.md

clean:
	rm -rf bin
