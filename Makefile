# The README's commands. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: test unit e2e example build

## test: unit tests, then the end-to-end suite on a real control plane
test: unit e2e

unit:
	$(GO) vet ./...
	$(GO) test ./...

## e2e: builds kube-apiserver and kube-controller-manager v1.36.3 once (cached
## under the user cache folder) and runs kgc against the real garbage collector.
## Needs etcd (apt-get install etcd-server); skipped without it unless KGC_E2E_REQUIRED=1.
e2e:
	cd test/e2e && $(GO) test -count=1 -timeout 60m ./...

## example: kgc's main job on the bundled example dump, no cluster needed
example:
	$(GO) run ./cmd/kgc plan delete deployment/web -n shop -f examples

build:
	$(GO) build -o bin/kgc ./cmd/kgc
