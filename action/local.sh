#!/usr/bin/env bash
# The action's scripts in the order action.yml runs them (install → run → gate), on this machine:
# reproduce a CI job locally, or try the action before pushing. The `uses:` steps (upload the
# artifact, publish JUnit and SARIF) are GitHub's and are skipped; their inputs are printed.
#
#   INPUT_INSTALL=path INPUT_SAMLHARNESS_BIN=.build/release/samlharness \
#   INPUT_CLIENT='python3 examples/python-websso/client.py' INPUT_FILTER='flow:web-sso tag:smoke' \
#     bash action/local.sh
#
# Every INPUT_* variable of action.yml's steps is read (see install.sh, run.sh, gate.sh). The
# files GitHub gives a step are made in a temporary RUNNER_TEMP unless set: GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY (its path printed at the end), GITHUB_PATH. Exit status: gate.sh's (0 conformant or
# no regression, 1 regression, 2 configuration error).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export RUNNER_TEMP="${RUNNER_TEMP:-$(mktemp -d)}"
export GITHUB_ACTION_PATH="${GITHUB_ACTION_PATH:-$(dirname "$here")}"
for file in GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_PATH; do
  if [[ -z ${!file:-} ]]; then export "$file=$RUNNER_TEMP/${file,,}"; : >"${!file}"; fi
done

# step_output NAME: the last value a step wrote for NAME (NAME=VALUE, or NAME<<DELIMITER lines).
step_output() {
  awk -v name="$1" '
    !reading && index($0, name "=") == 1 { last = substr($0, length(name) + 2); next }
    !reading && index($0, name "<<") == 1 { delimiter = substr($0, length(name) + 3); value = ""; reading = 1; first = 1; next }
    reading && $0 == delimiter { reading = 0; last = value; next }
    reading { value = first ? $0 : value "\n" $0; first = 0 }
    END { printf "%s", last }' "$GITHUB_OUTPUT"
}

bash "$here/install.sh" || exit $?
SAMLH_BIN="$(step_output bin)" bash "$here/run.sh" || exit $?
report_dir="$(step_output report-dir)"
echo "(on GitHub: upload-artifact $(step_output artifact-name) ← $report_dir;" \
     "JUnit ← $report_dir/junit.xml; SARIF ← $report_dir/report.sarif; judged: $(step_output judged))"
SAMLH_OUTCOME="$(step_output outcome)" SAMLH_EXIT_CODE="$(step_output exit-code)" SAMLH_REPORT_DIR="$report_dir" \
  bash "$here/gate.sh"
code=$?
echo "job summary: $GITHUB_STEP_SUMMARY"
exit "$code"
