# The targets README.md, .ci/run and the docs use. `make test` is the project's
# test command; CI runs the same line through .ci/run.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2
IMAGE ?= governanced:$(VERSION)

.PHONY: run build test fuzz lint bench load image testdata

run:
	$(GO) run ./cmd/governanced serve

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/governanced ./cmd/governanced
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/celine-governance ./cmd/celine-governance

test:
	$(GO) test -race -count=1 ./...

fuzz:
	./scripts/fuzz.sh

# staticcheck is installed by the target itself at a pinned version.
lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	"$$($(GO) env GOPATH)/bin/staticcheck" ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

load:
	./scripts/load.sh

# Needs a Docker engine (not available on every machine).
image:
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

# Refresh testdata/ from a specification directory: make testdata SRC=/path/to/shared
testdata:
	@test -n "$(SRC)" || { echo "usage: make testdata SRC=/path/to/shared" >&2; exit 2; }
	./scripts/sync-testdata.sh "$(SRC)"
