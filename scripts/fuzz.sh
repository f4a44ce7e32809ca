#!/usr/bin/env bash
# Fuzzes SAMLCore's decoders and SAML parser with libFuzzer for a bounded time
# (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS] [extra libFuzzer flags…]     default 120 s
#
# Builds the samlh-fuzz target with -sanitize=fuzzer,address into .build-fuzz/ (its own
# build path, gitignored by `.build*/`), then runs one fuzzing process (one core) over the
# committed seeds in Tests/Fuzz/seeds. New inputs go to .build-fuzz/work/corpus, crashes,
# hangs and leaks to .build-fuzz/work/artifacts. Replay a finding with the normal build:
#   swift build --product samlh-fuzz && .build/debug/samlh-fuzz .build-fuzz/work/artifacts/crash-…
#
# Environment: SKIP_BUILD=1 reuses the last build; SAMLH_BUILD_LOCK=FILE builds under
# `flock FILE` (shared build machines); NICE (default 10) is the niceness of build and run.
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-120}"
[[ $# -gt 0 ]] && shift
case "$seconds" in ''|*[!0-9]*) echo "usage: $0 [SECONDS] [libFuzzer flags…]" >&2; exit 2 ;; esac

build_path=.build-fuzz
work="$build_path/work"
nice_level="${NICE:-10}"
mkdir -p "$work/corpus" "$work/artifacts"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    build=(nice -n "$nice_level" swift build -c release --product samlh-fuzz --build-path "$build_path"
           -Xswiftc -sanitize=fuzzer,address -Xswiftc -DSAMLH_FUZZ)
    if [[ -n "${SAMLH_BUILD_LOCK:-}" ]]; then build=(flock "$SAMLH_BUILD_LOCK" "${build[@]}"); fi
    echo "building: ${build[*]}"
    build_status=0
    "${build[@]}" >"$work/build.log" 2>&1 || build_status=$?
    grep -Ev '^\[[0-9]+/[0-9]+\]|prohibited flag|CMakeLists|unhandled; explicitly|^ +/' "$work/build.log" || true
    [[ $build_status -eq 0 ]] || { echo "fuzz build failed (exit $build_status)" >&2; exit 1; }
fi
fuzzer="$build_path/release/samlh-fuzz"
[[ -x "$fuzzer" ]] || { echo "no $fuzzer: build first (without SKIP_BUILD)" >&2; exit 1; }

log="$work/fuzz-$(date +%Y%m%d-%H%M%S).log"
touch "$work/.run-start"
echo "fuzzing for ${seconds}s; log: $log"
status=0
# One process (one core): -max_total_time bounds the run, -timeout flags any input slower
# than 2 s as a hang, -rss_limit_mb flags unbounded memory; ASan's leak check runs too.
nice -n "$nice_level" "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=2 \
    -print_final_stats=1 -dict=Tests/Fuzz/saml.dict -artifact_prefix="$work/artifacts/" "$@" \
    "$work/corpus" Tests/Fuzz/seeds >"$log" 2>&1 || status=$?

grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" | tail -2 || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
echo "corpus: $(find "$work/corpus" -type f | wc -l) inputs in $work/corpus"
findings=$(find "$work/artifacts" -type f -newer "$work/.run-start" | sort)
if [[ -n "$findings" || $status -ne 0 ]]; then
    echo "FINDINGS (libFuzzer exit $status):"
    echo "$findings" | sed 's/^/  /'
    grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*invariant)' "$log" | head -5 | sed 's/^/  /' || true
    exit 1
fi
echo "no crashes, hangs or leaks"
