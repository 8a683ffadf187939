#!/usr/bin/env bash
# Everything a change must keep true besides the tests: lint clean, gofmt
# clean, go.mod/go.sum tidy in every module, the command reference
# generated from the current cobra tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
fail=0
hack/make-rules/lint.sh || fail=1
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [[ -n $unformatted ]]; then
  echo "verify: gofmt would change: $unformatted" >&2
  fail=1
fi
for mod in . test/e2e test/browser; do
  if ! (cd "$mod" && "$GO" mod tidy -diff >/dev/null); then
    echo "verify: go mod tidy would change $mod/go.mod or go.sum (run: cd $mod && go mod tidy)" >&2
    fail=1
  fi
done
if ! "$GO" test -count=1 -run 'TestCommandReferenceUpToDate' ./cmd/kgc >/dev/null; then
  echo "verify: docs/reference is out of date (run: go test ./cmd/kgc -run TestCommandReferenceUpToDate -update)" >&2
  fail=1
fi
exit $fail
