# The README's commands. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: help test unit e2e example build lint verify release-check release-check

## help: list the targets
help:
	@awk '/^## [a-z0-9-]+: / { name = $$2; sub(/:$$/, "", name); desc[name] = substr($$0, length(name) + 6); next } \
	  /^[a-z0-9-]+:/ { t = $$1; sub(/:.*/, "", t); if (t in desc) printf "  %-14s %s\n", t, desc[t] }' $(MAKEFILE_LIST)

## test: unit tests, then the end-to-end suite on a real control plane; each
## test is printed as it finishes (gotestsum, pinned, installed into the user
## cache once) and the last line counts them: N passed, N failed, N skipped
test:
	@GO=$(GO) hack/make-rules/test.sh reset
	@status=0; $(MAKE) --no-print-directory unit e2e || status=$$?; \
		GO=$(GO) hack/make-rules/test.sh summary; exit $$status

## unit: go vet and the unit tests; no cluster needed
unit:
	$(GO) vet ./...
	GO=$(GO) hack/make-rules/test.sh unit

## e2e: builds etcd 3.6, kube-apiserver, kube-controller-manager, kube-scheduler
## v1.36.3 and kwok once (cached under the user cache folder) and runs kgc against
## the real garbage collector and workload controllers.
e2e:
	GO=$(GO) hack/make-rules/test.sh e2e

## example: kgc's main job on the bundled example dump, no cluster needed
example:
	$(GO) run ./cmd/kgc plan delete deployment/web -n shop -f examples

## build: the kgc binary into bin/kgc
build:
	$(GO) build -o bin/kgc ./cmd/kgc

## lint: golangci-lint (pinned, installed into the user cache once) on both modules
lint:
	GO=$(GO) hack/make-rules/lint.sh

## verify: lint, gofmt, go mod tidy in both modules, the command reference up to date
verify:
	GO=$(GO) hack/make-rules/verify.sh

## release-check: the release configuration works, offline and publishing
## nothing: goreleaser check, then a snapshot release of this platform's
## archive into dist/, whose contents are checked (binaries, LICENSE, README)
## and installed the way krew would install them from plugins/kgc.yaml.
## The pinned goreleaser is installed into the user cache folder the first
## time (it compiles for several minutes), shared by every clone.
GORELEASER_VERSION := v2.15.1
# TOOLS holds pinned tools, keyed by version, beside Go's build cache.
TOOLS ?= $(dir $(shell $(GO) env GOCACHE))kgc-tools
GORELEASER := $(TOOLS)/goreleaser-$(GORELEASER_VERSION)/goreleaser
HOST_OS = $(shell $(GO) env GOOS)
HOST_ARCH = $(shell $(GO) env GOARCH)
# goreleaser runs `go` from PATH: make it the one this Makefile uses.
RUN_GORELEASER = PATH="$$($(GO) env GOROOT)/bin:$$PATH" $(GORELEASER)

$(GORELEASER):
	GOBIN=$(dir $@) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

release-check: $(GORELEASER)
	$(RUN_GORELEASER) check
	@# goreleaser release has no --single-target (only goreleaser build
	@# does): build from a copy of the configuration that targets this
	@# platform only.
	sed -e 's/^\( *goos:\) \[.*\]$$/\1 [$(HOST_OS)]/' -e 's/^\( *goarch:\) \[.*\]$$/\1 [$(HOST_ARCH)]/' \
		.goreleaser.yaml > $(TOOLS)/goreleaser-single-target.yaml
	@for k in goos:$(HOST_OS) goarch:$(HOST_ARCH); do \
		if [ "$$(grep -c "^ *$${k%%:*}:" .goreleaser.yaml)" != "$$(grep -c "^ *$${k%%:*}: \[$${k#*:}\]$$" $(TOOLS)/goreleaser-single-target.yaml)" ]; then \
			echo "release-check: could not narrow every $${k%%:*} of .goreleaser.yaml to $${k#*:}" >&2; exit 1; fi; \
	done
	$(RUN_GORELEASER) release --snapshot --clean --config $(TOOLS)/goreleaser-single-target.yaml
	@archive=$$(ls dist/kgc_*_$(HOST_OS)_$(HOST_ARCH).tar.gz) && listing=$$(tar -tzf $$archive) && \
	for f in kgc kubectl-kgc LICENSE README.md; do \
		echo "$$listing" | grep -qx "$$f" || { echo "release-check: $$archive has no $$f" >&2; exit 1; }; \
	done && echo "release-check: $$archive holds kgc, kubectl-kgc, LICENSE and README.md"
	KGC_RELEASE_DIST=$(CURDIR)/dist $(GO) test -count=1 -run '^TestSnapshotArchive' ./hack/release
