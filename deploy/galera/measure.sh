#!/usr/bin/env bash
# Measures double claims on a running 3-node cluster (deploy/galera/cluster.sh start): the
# store's claim race (connector/store/race_harness_test.go) with each handle on a different
# node, run against an older revision (default: the last one with the SELECT … FOR UPDATE
# claim) and against this working tree. The test files are copied into the old tree, so both
# runs race the same way.
#
#   deploy/galera/measure.sh [OLD_REV] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
OLD=${1:-7ae3be2} # the last revision with the SELECT … FOR UPDATE claim
ROUNDS=${2:-200}
DSNS=$(deploy/galera/cluster.sh dsns)
tmp=$(mktemp -d /tmp/rpe-galera-measure.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

run() { # dir label
  echo "== $2"
  (cd "$1" && TEST_GALERA_DSNS=$DSNS TEST_GALERA_ROUNDS=$ROUNDS \
    go test -count=1 -run '^TestGaleraClaimsHaveOneWinnerPerRow$' -v ./connector/store 2>&1 |
    grep -E 'galera (events|bookings|locks|node|first)|^(--- |ok|FAIL)' || true)
}

git archive "$OLD" | tar -x -C "$tmp"
cp connector/store/race_harness_test.go connector/store/galera_test.go "$tmp/connector/store/"
run "$tmp" "before: $(git log -1 --format='%h %s' "$OLD" | cut -c1-70)"
run . "after: this working tree ($(git log -1 --format=%h))"
