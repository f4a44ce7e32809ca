#!/usr/bin/env bash
# The GitHub Action's tests: its scripts run here as action.yml runs them (action/local.sh), with
# the variables GitHub sets pointed at temporary files, against the debug build.
#
#   bash action/test.sh
#
# SAMLH_BIN (default .build/debug/samlharness) and the reference client built beside it. Each
# case checks the exit status, the ::error/::warning/::notice line and the job summary:
#   a passing client (examples/python-websso/client.py)     → 0, ✅ summary
#   a client with a bug (reference client, form-not-encoded)  → 1, conformance regression
#     … against a baseline where it passed                  → 1, the regression report diff names
#     … against a baseline with the same failures           → 0, a warning (known failures)
#   no-such-client                                          → 2, configuration error
#   two clients; an unusable binary; a missing baseline      → 2, configuration error
#   a shard                                                 → artifact and check names per shard
#   install: release with a .deb (apt-get stubbed); a missing .deb; an unknown install → 0, 2, 2
# and that action.yml passes every INPUT_* the scripts read and uses every input it declares.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin="${SAMLH_BIN:-.build/debug/samlharness}"
reference="$(dirname "$bin")/samlh-reference-client"
[[ -x $bin && -x $reference ]] || { echo "action/test.sh: needs $bin and $reference (swift build)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
started=$SECONDS
failures=0 cases=0
FILTER='flow:web-sso tag:smoke'

# case NAME EXPECTED_EXIT [VAR=VALUE…]: runs action/local.sh in a fresh RUNNER_TEMP; leaves
# $out (stdout+stderr), $summary and $outputs for the checks that follow.
case_() {
  local name="$1" expected="$2"; shift 2
  cases=$((cases + 1))
  local temp="$work/case$cases"; mkdir -p "$temp"
  out="$temp/out" summary="$temp/github_step_summary" outputs="$temp/github_output"
  env -u GITHUB_OUTPUT -u GITHUB_STEP_SUMMARY -u GITHUB_PATH RUNNER_TEMP="$temp" \
    INPUT_INSTALL=path INPUT_SAMLHARNESS_BIN="$bin" INPUT_FILTER="$FILTER" INPUT_REPORT_DIR="$temp/report" \
    "$@" bash action/local.sh >"$out" 2>&1
  local code=$?
  current="$name"
  if [[ $code != "$expected" ]]; then fail "exit $code, expected $expected"; fi
}
fail() {
  failures=$((failures + 1))
  echo "FAIL action/test.sh: $current: $1" >&2
  sed 's/^/    /' "$out" | tail -n 30 >&2
}
has() { grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks: $2"; }
lacks() { ! grep -qF -- "$2" "$1" || fail "$(basename "$1") has: $2"; }

case_ "a passing client" 0 INPUT_CLIENT='python3 examples/python-websso/client.py'
has "$out" "::notice title=SAMLHarness%3A conformant::every required check passed (3 scenarios"
has "$summary" "— ✅ conformant"
has "$summary" "3 scenarios: **3 pass**"
has "$outputs" "outcome=pass"
has "$outputs" "judged=true"
for file in junit.xml report.json report.sarif summary.md report.html run.log; do
  [[ -s $work/case$cases/report/$file ]] || fail "no $file in the report folder"
done
cp "$work/case$cases/report/report.json" "$work/good.json"

buggy="$reference --variant form-not-encoded"
case_ "a client with a bug" 1 INPUT_CLIENT="$buggy"
has "$out" "::error title=SAMLHarness%3A conformance regression::samlharness run exited 1: a required check failed"
has "$out" "FAIL web-sso.shibboleth-form-login"
has "$out" "encoding.form-percent-encoded"
has "$summary" "❌ not conformant"
has "$outputs" "outcome=regression"
lacks "$out" "configuration error"
cp "$work/case$cases/report/report.json" "$work/buggy.json"

case_ "a bug against a baseline where the client passed" 1 INPUT_CLIENT="$buggy" INPUT_BASELINE="$work/good.json"
has "$out" "::error title=SAMLHarness%3A conformance regression::against $work/good.json, a scenario or required check that passed there fails now:%0Aregressions: 3"
has "$summary" "## Against the baseline"
has "$summary" "**regression**"
has "$outputs" "diff-exit-code=1"

case_ "a bug the baseline has too" 0 INPUT_CLIENT="$buggy" INPUT_BASELINE="$work/buggy.json"
has "$out" "::warning title=SAMLHarness%3A failures known from the baseline::no regression against"
has "$summary" "no regression"
has "$outputs" "outcome=known-failures"

case_ "no-such-client" 2 INPUT_CLIENT=no-such-client
has "$out" "::error title=SAMLHarness%3A configuration error::nothing was judged (samlharness exited 2): error: the client never ran: the client command was not found: no-such-client"
has "$summary" "## ❌ SAMLHarness: configuration error"
has "$outputs" "judged=false"
lacks "$out" "conformance regression"

case_ "two clients" 2 INPUT_CLIENT=true INPUT_BUILTIN=reference
has "$out" "::error title=SAMLHarness%3A configuration error::nothing was judged (samlharness exited 2): give exactly one of client"

case_ "a binary that is not one" 2 INPUT_CLIENT=true INPUT_SAMLHARNESS_BIN=/nonexistent/samlharness
has "$out" "::error title=SAMLHarness%3A configuration error::samlharness-bin /nonexistent/samlharness is not an executable file"
has "$summary" "configuration error"

case_ "a baseline that is missing" 2 INPUT_CLIENT=true INPUT_BASELINE="$work/nothing.json"
has "$out" "baseline $work/nothing.json does not exist"

FILTER='web-sso.shibboleth-form-login'
case_ "a shard" 0 INPUT_BUILTIN=reference INPUT_SHARD=1/2
has "$outputs" "artifact-name=samlharness-report-shard-1-of-2"
has "$outputs" "label= (shard 1/2)"
has "$out" "--shard 1/2"

# install: release with a .deb, apt-get (and sudo) stubbed: the stub records its arguments and
# "installs" samlharness on PATH as a link to the binary under test.
stub="$work/stub"; mkdir -p "$stub/bin"
: >"$stub/samlharness_0.0.0_amd64.deb"
absolute_bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
cat >"$stub/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$stub/apt.log"
case "\$*" in *install*) ln -sf "$absolute_bin" "$stub/bin/samlharness" ;; esac
EOF
printf '#!/bin/sh\nexec "$@"\n' >"$stub/bin/sudo"
chmod +x "$stub/bin/apt-get" "$stub/bin/sudo"
case_ "install: release, a .deb" 0 INPUT_INSTALL=release INPUT_DEB="$stub/samlharness_0.0.0_amd64.deb" \
  INPUT_BUILTIN=reference PATH="$stub/bin:$PATH"
has "$stub/apt.log" "apt-get install -y -qq $stub/samlharness_0.0.0_amd64.deb"
has "$outputs" "bin=$stub/bin/samlharness"
has "$outputs" "outcome=pass"
case_ "install: release, no .deb there" 2 INPUT_INSTALL=release INPUT_DEB="$work/samlharness_9_amd64.deb" INPUT_BUILTIN=reference
has "$out" "::error title=SAMLHarness%3A configuration error::no Debian package at $work/samlharness_9_amd64.deb"
case_ "install: something else" 2 INPUT_INSTALL=brew INPUT_BUILTIN=reference
has "$out" "install must be release, source or path, not 'brew'"

# action.yml and the scripts agree: every INPUT_* a script reads is passed, every input is used.
current="action.yml"; out=/dev/null
read_by_scripts="$(grep -ohE 'INPUT_[A-Z_]+' action/install.sh action/run.sh action/gate.sh | sort -u)"
for variable in $read_by_scripts; do
  grep -qE "^ +$variable: " action.yml || fail "action.yml does not pass $variable, which the scripts read"
done
for input in $(sed -n '/^inputs:/,/^outputs:/p' action.yml | grep -oE '^  [a-z-]+:' | tr -d ' :'); do
  grep -qE "inputs\.$input([^a-z-]|$)" action.yml || fail "input $input is declared but not used"
done
for action in actions/upload-artifact@v6 mikepenz/action-junit-report@v6 github/codeql-action/upload-sarif@v4; do
  grep -qF "uses: $action" action.yml || fail "action.yml does not use $action (pinned by tag)"
done

if ((failures)); then
  echo "action/test.sh: $failures check(s) failed in $cases cases ($((SECONDS - started)) s)" >&2
  exit 1
fi
echo "action/test.sh: $cases cases passed ($((SECONDS - started)) s)"
