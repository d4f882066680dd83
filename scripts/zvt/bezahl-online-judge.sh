#!/usr/bin/env bash
# Runs the live tests of bezahl-online/zvt (a Go ECR library this project
# did not write) against a ZVT terminal over TCP: registration,
# authorisation, end of day, log-off, abort, status, display text. By hand,
# not part of npm test: the library is on no registry Debian's Go reaches.
#
#   apt-get install golang-go golang-go.uber-zap-dev golang-github-stretchr-testify-dev
#   # the library and its one dependency Debian lacks, as source trees (git clone or a fetched snapshot):
#   #   <bezahl-online/zvt> and <albenik/bcd>
#   svc-terminal emulate --dialect zvt --listen 127.0.0.1:20008 --serial 29001007 --password 123456 &
#   bash scripts/zvt/bezahl-online-judge.sh /path/to/bezahl-online-zvt /path/to/albenik-bcd 127.0.0.1:20008
#
# GOPATH mode (no module proxy can be reached): the two trees are copied
# under a temporary GOPATH beside Debian's /usr/share/gocode. Each test
# runs in a process of its own, as the library's tests are written to run
# (TestRegisterCompletion calls TestRegister itself; run after it in one
# process, it reads the first registration's Completion as the second's
# answer). The library's password is 123456. Prints PASS/FAIL per test and
# "N passed, N failed".
set -uo pipefail
zvt_src=${1:?the bezahl-online/zvt source tree}
bcd_src=${2:?the albenik/bcd source tree}
address=${3:-127.0.0.1:20008}
tests=(TestRegister TestRegisterCompletion TestAuthorisation TestAuthorisationCompletion TestEndOfDay
  TestEndOfDayCompletion TestLogOff TestAbort TestStatus TestStatusCompletion TestDisplayText)

gopath=$(mktemp -d)
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src/github.com/bezahl-online" "$gopath/src/github.com/albenik" "$gopath/log"
cp -r "$zvt_src" "$gopath/src/github.com/bezahl-online/zvt"
cp -r "$bcd_src" "$gopath/src/github.com/albenik/bcd"
cd "$gopath/src/github.com/bezahl-online/zvt" || exit 1
export GO111MODULE=off GOFLAGS= GOPATH="$gopath:/usr/share/gocode" ZVT_URL="$address" \
  ZVT_LOGFILEPATH="$gopath/log" ZVT_DUMPFILEPATH="$gopath/log"
go vet ./command >/dev/null 2>&1 || true

passed=0
failed=0
for name in "${tests[@]}"; do
  output=$(timeout 120 go test ./command -count=1 -v -run "^${name}\$" 2>&1)
  if grep -q -- "--- PASS: ${name}" <<<"$output"; then
    echo "PASS ${name}"
    passed=$((passed + 1))
  else
    echo "FAIL ${name}: $(grep -A2 'Error:' <<<"$output" | tr -s ' \t' ' ' | head -c 300)"
    failed=$((failed + 1))
  fi
  # The terminal ends a transaction the closed connection left (T3) before the next test connects.
  sleep 6
done
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
