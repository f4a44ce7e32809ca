#!/usr/bin/env bash
# Last step of the SAMLHarness action: fail the job, with a message of its own, only on
#   - a conformance regression: exit 1. With a baseline, a scenario or required check that
#     passed in it and fails now (`samlharness report diff`); without one, any failed check or
#     crashed or errored scenario (every failure is new when nothing is known to fail);
#   - a configuration error: exit 2 (run's exit 2: a usage error, a broken scenario, a filter
#     that matches nothing, a client that never started; an unreadable baseline).
# Failures the baseline has too pass the job with a warning; an interrupted run or a samlharness
# that stopped abnormally fails it with their own messages.
#
# Environment: SAMLH_OUTCOME, SAMLH_EXIT_CODE, SAMLH_REPORT_DIR (run.sh's outputs outcome,
# exit-code, report-dir), INPUT_BASELINE.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"

outcome="${SAMLH_OUTCOME:-}"
code="${SAMLH_EXIT_CODE:-}"
report_dir="${SAMLH_REPORT_DIR:-samlharness-report}"
log="$report_dir/run.log"

# The run's count line ("3 scenarios in 0.6 s: 0 pass, 3 fail, 0 error, 0 skipped; …").
counts="$(grep -E '^[0-9]+ scenarios in ' "$log" 2>/dev/null | tail -n1 | sed -E 's/; .*//')"
# The first failing scenarios, as run printed them.
failing() {
  local total; total="$(grep -cE '^(FAIL|CRASHED|ERROR) ' "$log" 2>/dev/null || true)"
  grep -E '^(FAIL|CRASHED|ERROR) ' "$log" 2>/dev/null | head -n 10
  if ((${total:-0} > 10)); then echo "… and $((total - 10)) more: the job summary and the report artifact have them all"; fi
}

case "$outcome" in
  pass)
    annotate notice "SAMLHarness: conformant" "every required check passed${counts:+ ($counts)}"
    exit 0 ;;
  known-failures)
    annotate warning "SAMLHarness: failures known from the baseline" \
      "no regression against ${INPUT_BASELINE:-the baseline}, but scenarios still fail as they did there${counts:+ ($counts)}:
$(failing)"
    exit 0 ;;
  regression)
    if [[ -f $report_dir/diff.txt ]]; then
      annotate error "SAMLHarness: conformance regression" \
        "against ${INPUT_BASELINE:-the baseline}, a scenario or required check that passed there fails now:
$(grep -E '^(regressions|check regressions): |^  ' "$report_dir/diff.txt" | head -n 14)"
    else
      annotate error "SAMLHarness: conformance regression" \
        "samlharness run exited 1: a required check failed or a client crashed${counts:+ ($counts)}:
$(failing)"
    fi
    exit 1 ;;
  configuration-error)
    annotate error "SAMLHarness: configuration error" \
      "nothing was judged (samlharness exited ${code:-2}): $(head -c 4000 "$report_dir/configuration-error.txt" 2>/dev/null || echo 'see the run log')"
    exit 2 ;;
  interrupted)
    annotate error "SAMLHarness: interrupted" "samlharness run was stopped (exit $code); the finished scenarios are in the reports"
    exit 1 ;;
  harness-error)
    annotate error "SAMLHarness: samlharness failed" "samlharness run stopped abnormally (exit $code): $(tail -n 5 "$log" 2>/dev/null)"
    exit 1 ;;
  *)
    annotate error "SAMLHarness: configuration error" "the run step recorded no outcome (did it run?)"
    exit 2 ;;
esac
