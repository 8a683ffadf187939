#!/usr/bin/env bash
# Runs a test suite with gotestsum (pinned, installed through the Go module
# proxy into the user cache the first time, shared by every clone), which
# prints each test as it finishes, also without a terminal (CI), and ends
# with its DONE line. Usage:
#   test.sh unit|e2e   run the suite, recording its events for the summary
#   test.sh summary    print "N passed, N failed, N skipped" over the
#                      suites run since the last `test.sh reset`
#   test.sh reset      forget the suites run so far
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
VERSION=v1.13.0
TOOLS=${TOOLS:-$(dirname "$($GO env GOCACHE)")/kgc-tools}
BIN=$TOOLS/gotestsum-$VERSION/gotestsum
# The events of each suite run (go test -json), read by summary.
EVENTS=${TEST_EVENTS:-bin/test-events}

install() {
  if [[ ! -x $BIN ]]; then
    echo "test: installing gotestsum $VERSION into $(dirname "$BIN") (once)" >&2
    GOBIN=$(dirname "$BIN") "$GO" install "gotest.tools/gotestsum@$VERSION"
  fi
}

# run SUITE DIR GO-TEST-ARGS...: gotestsum runs `go` from PATH, so the go
# this script was given comes first on it.
run() {
  local suite=$1 dir=$2
  shift 2
  install
  mkdir -p "$EVENTS"
  local events
  events=$(cd "$EVENTS" && pwd)/$suite.json
  (cd "$dir" && PATH="$("$GO" env GOROOT)/bin:$PATH" "$BIN" --format testname --jsonfile "$events" -- "$@")
}

# count ACTION: the tests (subtests included, as gotestsum counts them)
# whose last event is ACTION, over every suite recorded.
count() {
  cat "$EVENTS"/*.json 2>/dev/null | grep -F "\"Action\":\"$1\"" | grep -cF '"Test":"' || true
}

case ${1:-} in
  unit) run unit . ./... ;;
  e2e) run e2e test/e2e -count=1 -timeout 60m ./... ;;
  reset) rm -rf "$EVENTS" ;;
  summary) echo "$(count pass) passed, $(count fail) failed, $(count skip) skipped" ;;
  *) echo "usage: $0 unit|e2e|summary|reset" >&2; exit 2 ;;
esac
