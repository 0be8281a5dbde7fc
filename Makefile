# The targets README.md and .ci/run use. `make test` is the project's test command.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: run build test bench fuzz lint

run:
	$(GO) run ./cmd/governanced serve

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/governanced ./cmd/governanced

test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	$(GO) vet ./...
	test -z "$$(gofmt -l $$(git ls-files '*.go'))"
