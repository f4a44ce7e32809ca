#!/usr/bin/env bash
# ThreadSanitizer over the concurrent parts: the run engine (--jobs), `load` (every flow at
# once), the mocks under concurrent logins, the control API, the time scale, the in-process
# client; then the instrumented CLI itself (`load`, `run --jobs 2`). docs/release-smoke.md.
#
# Built and tested with `-Xswiftc -DSAMLH_TSAN_LOCKS`: SAMLCore's `LockedValue`, the package's
# mutex, is then a pthread mutex, which TSan intercepts, instead of `Synchronization.Mutex`,
# whose futex TSan cannot see (it reported every access inside `withLock` as a race).
#
#   bash scripts/tsan.sh                      build into .build-tsan (heavy the first time), run
#   SAMLH_TSAN_FILTER='RegEx' bash scripts/tsan.sh      other test suites
#   SAMLH_TSAN_SCRATCH=DIR                    another scratch path
#
# Every instrumented process — the test runner and every samlharness, reference client or
# serve the tests start — writes its reports to .build-tsan/tsan-logs/tsan.PID (TSAN_OPTIONS
# log_path), so the races of child processes are not lost in a test's captured stderr. Prints
# each distinct report's SUMMARY line with how often it was seen, then one line
# `tsan: N reports (M distinct), tests exit T, cli exit C`. Exit 0 only when there is no report
# and the tests and the CLI passed. The CLI's run uses --time-scale 0.5, not 0.1: at 0.1 the
# instrumented reference client (5-15x slower) misses ecp.dead-idp's 1 s deadline (not a race;
# docs/release-smoke.md).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
scratch="${SAMLH_TSAN_SCRATCH:-$repo/.build-tsan}"
filter="${SAMLH_TSAN_FILTER:-LockedValueTests|RunEngineTests|FaultToleranceTests|ControlAPITests|TimeScaleTests|InProcessClientTests|ServeCommandTests|BenchCommandTests|DeterminismTests}"
logs="$scratch/tsan-logs"

start=$SECONDS
# The same flags on both commands, or `swift test` would rebuild without the condition.
flags=(-c debug --sanitize=thread --scratch-path "$scratch" -Xswiftc -DSAMLH_TSAN_LOCKS)
swift build --build-tests "${flags[@]}" \
  || { echo "tsan: the instrumented build failed"; exit 2; }
echo "tsan: built in $((SECONDS - start)) s"

rm -rf "$logs"; mkdir -p "$logs"
# halt_on_error=0: go on after a report, to see them all. The instrumented processes exit 66
# after a report (TSan's default), so a test checking a child's exit status fails too.
export TSAN_OPTIONS="log_path=$logs/tsan halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"

start=$SECONDS
swift test --skip-build "${flags[@]}" --filter "$filter"; tests=$?
echo "tsan: tests ($filter) exit $tests in $((SECONDS - start)) s"

# The CLI as users run it, instrumented: load over every flow, a parallel run of a slice.
start=$SECONDS
bin="$scratch/debug/samlharness"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
"$bin" load --logins 400 --concurrency 200 --json-out "$work/load.json" >"$work/load.out" 2>&1; cli=$?
"$bin" run --builtin reference --jobs 2 --time-scale 0.5 --report-dir "$work/run" \
  --filter 'web-sso.a*' --filter 'ecp.*' --filter 'cas-rest.*' --filter 'http-digest.*' >"$work/run.out" 2>&1 || cli=$((cli | $?))
grep -E 'succeeded|ok,' "$work/load.out"; grep -E '^(FAIL|ERROR)|scenarios in' "$work/run.out"
echo "tsan: cli (load, run --jobs 2) exit $cli in $((SECONDS - start)) s"

reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
distinct=$(cat "$logs"/tsan.* 2>/dev/null | grep '^SUMMARY: ThreadSanitizer' | sed "s|$repo/||" | sort | uniq -c | sort -rn)
[[ -n "$distinct" ]] && echo "$distinct"
n_distinct=$(printf '%s' "$distinct" | grep -c . || true)
echo "tsan: $reports reports ($n_distinct distinct) in $(ls "$logs" | wc -l) log files under $logs, tests exit $tests, cli exit $cli"
[[ $reports -eq 0 && $tests -eq 0 && $cli -eq 0 ]]
