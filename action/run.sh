#!/usr/bin/env bash
# Step 2 of the SAMLHarness action: `samlharness run`, `report diff` against the baseline, the
# job summary. Never fails the step (the reports must still be uploaded and published): what
# happened goes to the outputs, and gate.sh, the last step, fails the job.
#
# Environment (the action's inputs; GitHub's own variables):
#   SAMLH_BIN                  the binary (install.sh's output `bin`)
#   INPUT_CLIENT | INPUT_CLIENT_FILE | INPUT_BUILTIN   the client under test: exactly one
#   INPUT_SCENARIOS            scenario files or folders, one a line (default: the installed catalog)
#   INPUT_FILTER               filters, one a line (each a `--filter`: their union is run)
#   INPUT_SHARD (I/N), INPUT_JOBS, INPUT_TIME_SCALE, INPUT_TIMEOUT
#   INPUT_REPORT_DIR           where the reports go (default samlharness-report)
#   INPUT_BASELINE             a report.json (or report directory) of a known-good run: the job then
#                              fails only on a regression against it (`samlharness report diff`)
#   INPUT_WORKING_DIRECTORY    where the client command runs from (default: the current directory)
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT
#
# Outputs: exit-code (run's), diff-exit-code (report diff's, when a baseline was given),
# outcome (pass | known-failures | regression | configuration-error | interrupted | harness-error),
# judged (true when scenarios were judged), report-dir (absolute), artifact-name
# (samlharness-report, -shard-I-of-N with a shard), suffix (that -shard-I-of-N) and label
# (" (shard I/N)"), which name the check run and the SARIF category apart per shard.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"

[[ -z ${INPUT_WORKING_DIRECTORY:-} ]] || cd "$INPUT_WORKING_DIRECTORY" || {
  annotate error "SAMLHarness: configuration error" "working-directory $INPUT_WORKING_DIRECTORY does not exist"; exit 2; }
report_dir="${INPUT_REPORT_DIR:-samlharness-report}"
mkdir -p "$report_dir" && report_dir="$(cd "$report_dir" && pwd)"
log="$report_dir/run.log"
bin="${SAMLH_BIN:-}"

finish() {  # finish OUTCOME EXIT DIFF_EXIT JUDGED
  output outcome "$1"; output exit-code "$2"; output diff-exit-code "$3"; output judged "$4"
  output report-dir "$report_dir"
  local suffix="" label=""
  if [[ -n ${INPUT_SHARD:-} ]]; then suffix="-shard-${INPUT_SHARD//\//-of-}"; label=" (shard $INPUT_SHARD)"; fi
  output artifact-name "samlharness-report$suffix"
  output suffix "$suffix"
  output label "$label"
  echo "SAMLHarness: outcome $1 (run exit $2${3:+, report diff exit $3})"
  exit 0
}

configuration_error() {  # the step records it; gate.sh says it and fails the job
  printf '%s\n' "$1" >"$report_dir/configuration-error.txt"
  printf '## ❌ SAMLHarness: configuration error\n\n%s\n' "$1" | summary
  finish configuration-error 2 "" false
}

[[ -n $bin && -x $bin ]] || configuration_error "no samlharness binary (SAMLH_BIN=${bin:-unset}): the install step gives one"
clients=0
for value in "${INPUT_CLIENT:-}" "${INPUT_CLIENT_FILE:-}" "${INPUT_BUILTIN:-}"; do [[ -n $value ]] && clients=$((clients + 1)); done
((clients == 1)) || configuration_error "give exactly one of client (a command), client-file (a client file) or builtin (reference); got $clients"

args=(run --report-dir "$report_dir")
[[ -n ${INPUT_CLIENT:-} ]] && args+=(--client "$INPUT_CLIENT")
[[ -n ${INPUT_CLIENT_FILE:-} ]] && args+=(--client-file "$INPUT_CLIENT_FILE")
[[ -n ${INPUT_BUILTIN:-} ]] && args+=(--builtin "$INPUT_BUILTIN")
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"; line="${line%"${line##*[![:space:]]}"}"
  [[ -n $line ]] && args+=(--filter "$line")
done <<<"${INPUT_FILTER:-}"
[[ -n ${INPUT_SHARD:-} ]] && args+=(--shard "$INPUT_SHARD")
[[ -n ${INPUT_JOBS:-} ]] && args+=(--jobs "$INPUT_JOBS")
[[ -n ${INPUT_TIME_SCALE:-} ]] && args+=(--time-scale "$INPUT_TIME_SCALE")
[[ -n ${INPUT_TIMEOUT:-} ]] && args+=(--timeout "$INPUT_TIMEOUT")
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"; line="${line%"${line##*[![:space:]]}"}"
  [[ -n $line ]] && args+=("$line")
done <<<"${INPUT_SCENARIOS:-}"

baseline="${INPUT_BASELINE:-}"
if [[ -n $baseline && ! -e $baseline ]]; then
  configuration_error "baseline $baseline does not exist (leave the input empty when there is no baseline yet)"
fi

printf '$ samlharness'; printf ' %q' "${args[@]}"; printf '\n'
"$bin" "${args[@]}" 2>&1 | tee "$log"
code=${PIPESTATUS[0]}

diff_code=""
if [[ -n $baseline && ( $code -eq 0 || $code -eq 1 ) && -f $report_dir/report.json ]]; then
  echo "$ samlharness report diff $baseline $report_dir/report.json"
  "$bin" report diff "$baseline" "$report_dir/report.json" 2>&1 | tee "$report_dir/diff.txt"
  diff_code=${PIPESTATUS[0]}
fi

# The job summary: run's summary.md, then what the baseline says, or the configuration error.
{
  if [[ -f $report_dir/summary.md ]] && ((code != 2)); then
    limit=$((900 * 1024))   # GitHub takes 1 MiB of summary per step
    head -c "$limit" "$report_dir/summary.md"
    (($(wc -c <"$report_dir/summary.md") > limit)) && printf '\n\n… (cut: the whole summary is summary.md in the report artifact)\n'
  fi
  if [[ -n $diff_code ]]; then
    printf '\n## Against the baseline\n\n`%s`: %s\n\n```\n' "$baseline" \
      "$( ((diff_code == 1)) && echo "**regression**" || { ((diff_code == 0)) && echo "no regression" || echo "unreadable"; })"
    head -c $((64 * 1024)) "$report_dir/diff.txt"
    printf '```\n'
  fi
  if ((code == 2)); then
    printf '## ❌ SAMLHarness: configuration error\n\n`samlharness run` exited 2: nothing was judged.\n\n```\n'
    grep -E '^error: ' "$log" | head -n 20
    printf '```\n'
  fi
} | summary

judged=true
case "$code" in
  0|1)
    if [[ -n $diff_code ]]; then
      case "$diff_code" in
        0) if ((code == 0)); then outcome=pass; else outcome=known-failures; fi ;;
        1) outcome=regression ;;
        *) outcome=configuration-error; grep -E '^error: ' "$report_dir/diff.txt" >"$report_dir/configuration-error.txt" || true ;;
      esac
    elif ((code == 0)); then outcome=pass
    else outcome=regression
    fi ;;
  2) outcome=configuration-error; judged=false
     { grep -E '^error: ' "$log" || tail -n 5 "$log"; } >"$report_dir/configuration-error.txt" ;;
  126|127) outcome=configuration-error; judged=false; tail -n 5 "$log" >"$report_dir/configuration-error.txt" ;;
  130|143) outcome=interrupted ;;
  *) outcome=harness-error ;;
esac
finish "$outcome" "$code" "$diff_code" "$judged"
