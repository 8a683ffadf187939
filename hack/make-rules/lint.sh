#!/usr/bin/env bash
# Lints the Go modules (the product, test/e2e and test/browser) with the pinned
# golangci-lint, installed through the Go module proxy into the user cache
# the first time (shared by every clone).
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
VERSION=v2.15.0
TOOLS=${TOOLS:-$(dirname "$($GO env GOCACHE)")/kgc-tools}
BIN=$TOOLS/golangci-lint-$VERSION/golangci-lint
if [[ ! -x $BIN ]]; then
  echo "lint: installing golangci-lint $VERSION into $(dirname "$BIN") (once)" >&2
  GOBIN=$(dirname "$BIN") "$GO" install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$VERSION"
fi
# --allow-serial-runners: a second lint (another clone) waits for the first
# instead of failing.
"$BIN" run --allow-serial-runners ./...
(cd test/e2e && "$BIN" run --allow-serial-runners --config ../../.golangci.yml ./...)
(cd test/browser && "$BIN" run --allow-serial-runners --config ../../.golangci.yml ./...)
