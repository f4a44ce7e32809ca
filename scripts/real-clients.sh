#!/usr/bin/env bash
# The real-client suite (issue 17): widely used, unmodified clients through `samlharness run`.
#
#   bash scripts/real-clients.sh              install the clients, run the suite, write docs/real-clients.md
#   bash scripts/real-clients.sh --check      run, regenerate to a temp file and compare with the committed
#                                             docs/real-clients.md: exit 1 printing the difference when a
#                                             verdict changed; ends with "N passed, N failed" (scenarios
#                                             whose held row matches / differs)
#   bash scripts/real-clients.sh --repeat 3   run the whole suite 3 times and list every scenario whose
#                                             status differs between the runs (timing-sensitive ones go
#                                             to `unstable:` in Tests/RealClients/suite.yaml)
#   --only NAME (repeatable)                  run only these suite entries (the doc is not written)
#   --no-run                                  write (or --check) the doc from the results of the last run
#                                             in Reports/real-clients/, without running the suite again
#
# Tests/RealClients/suite.yaml says which client file runs which scenarios; every scenario that is not
# a pass (and every failed required check) must have its reason in Tests/RealClients/verdicts.yaml,
# else the script fails listing it: a verdict nobody can justify is a harness defect.
#
# Environment: SAMLH_BIN  the samlharness binary (default: `swift build --product samlharness`, then
# its product in .build/debug). Reports go to Reports/real-clients/<name>/ (results.jsonl and the
# reports of each entry); a --repeat run keeps run K in Reports/real-clients/run-K/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=write repeat=1 only=() run=1
while (($#)); do
  case "$1" in
    --check) mode=check ;;
    --repeat) repeat=${2:?--repeat N}; shift ;;
    --only) only+=("${2:?--only NAME}"); shift ;;
    --no-run) run=0 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "real-clients: unknown option $1 (--check, --repeat N, --only NAME, --no-run)" >&2; exit 2 ;;
  esac
  shift
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "real-clients: --repeat takes a positive number" >&2; exit 2; }

started=$SECONDS
suite=Tests/RealClients/suite.yaml verdicts=Tests/RealClients/verdicts.yaml doc=docs/real-clients.md
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The clients (idempotent; each prints one line), and PyYAML for the doc helper in the suite's venv.
bash scripts/setup-real-clients-python.sh
bash scripts/setup-real-clients-system.sh
py=.venv-real-clients/bin/python
if ! "$py" -c 'import yaml' 2>/dev/null; then
  "$py" -m pip install --quiet --no-input --disable-pip-version-check PyYAML==6.0.3 </dev/null >"$work/pip.log" 2>&1 \
    || { cat "$work/pip.log" >&2; echo "real-clients: pip install PyYAML==6.0.3 failed" >&2; exit 1; }
fi
helper=(env PYTHONDONTWRITEBYTECODE=1 "$py" scripts/real_clients_doc.py)

# The harness: a private copy, so a rebuild during the run cannot change the binary under it.
if ((run)) && [[ -z ${SAMLH_BIN:-} ]]; then
  swift build --product samlharness >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
  SAMLH_BIN="$(swift build --show-bin-path)/samlharness"
fi
if ((run)); then
  [[ -x $SAMLH_BIN ]] || { echo "real-clients: $SAMLH_BIN is not an executable" >&2; exit 1; }
  cp "$SAMLH_BIN" "$work/samlharness"
  bin="$work/samlharness"
fi

# A real MIT Kerberos realm (scripts/setup-kerberos.sh) for the Negotiate/Kerberos scenarios
# (tag kerberos): the mocks accept its tickets, the runner gets each client its TGT with kinit.
# Stopped with the run.
if ((run)); then
  bash scripts/setup-kerberos.sh install >/dev/null
  bash scripts/setup-kerberos.sh start "$work/kerberos" >/dev/null
  trap 'bash scripts/setup-kerberos.sh stop "$work/kerberos"; rm -rf "$work"' EXIT
  export SAMLH_KERBEROS="$work/kerberos"
fi

# One line per entry: name, client file, then its filters (each with the entry's unstable scenarios
# left out), tab-separated; the run's settings first.
"$py" - "$suite" "${only[@]}" >"$work/entries" <<'PY'
import sys, yaml
suite = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
only = sys.argv[2:]
unstable = suite.get("unstable") or {}
print("%s\t%s" % (suite.get("jobs", 2), suite.get("time_scale", 1)))
names = [c["name"] for c in suite["clients"]]
for name in only:
    if name not in names:
        sys.exit("real-clients: no suite entry %s (%s)" % (name, ", ".join(names)))
for c in suite["clients"]:
    if only and c["name"] not in only:
        continue
    drop = "".join(" -" + s for s in unstable.get(c["name"], []))
    print("\t".join([c["name"], c["file"]] + [f + drop for f in c["filters"]]))
PY
IFS=$'\t' read -r jobs time_scale <"$work/entries"

# run_suite DIR: every entry into DIR/<name>; a usage error (exit 2) or a signal stops the script.
run_suite() {
  local dir=$1 name file filters rc
  while IFS=$'\t' read -r -a fields; do
    name=${fields[0]} file=${fields[1]} filters=()
    for f in "${fields[@]:2}"; do filters+=(--filter "$f"); done
    rm -rf "${dir:?}/$name"
    rc=0
    "$bin" run --client-file "Tests/RealClients/$file" "${filters[@]}" --jobs "$jobs" --time-scale "$time_scale" \
      --report-dir "$dir/$name" >"$work/$name.log" 2>&1 || rc=$?
    if ((rc != 0 && rc != 1)); then
      cat "$work/$name.log" >&2
      echo "real-clients: samlharness run exited $rc for $name" >&2
      exit 1
    fi
    echo "real-clients: $name: $(tail -n 1 "$work/$name.log")"
  done < <(tail -n +2 "$work/entries")
}

if ((repeat > 1)); then
  dirs=()
  for ((k = 1; k <= repeat; k++)); do
    run_suite "Reports/real-clients/run-$k"
    dirs+=("Reports/real-clients/run-$k")
  done
  echo "real-clients: $repeat runs in $((SECONDS - started)) s"
  "${helper[@]}" flaps "$suite" "${dirs[@]}"
  exit $?
fi

((run)) && run_suite Reports/real-clients
if ((${#only[@]})); then
  echo "real-clients: --only: the doc is not written ($((SECONDS - started)) s)"
  exit 0
fi

# Versions of each client, as the suite entry's `version` command prints them.
"$py" - "$suite" >"$work/versions.json" <<'PY'
import json, subprocess, sys, yaml
suite = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
versions = {}
for c in suite["clients"]:
    out = subprocess.run(c["version"], shell=True, capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        sys.exit("real-clients: the version command of %s failed: %s" % (c["name"], out.stderr.strip()))
    versions[c["name"]] = out.stdout.strip()
json.dump(versions, sys.stdout)
PY

status=0
if [[ $mode == write ]]; then
  "${helper[@]}" render "$suite" "$verdicts" Reports/real-clients "$work/versions.json" "$doc" || status=$?
  echo "real-clients: wrote $doc ($((SECONDS - started)) s)"
  exit $status
fi
"${helper[@]}" render "$suite" "$verdicts" Reports/real-clients "$work/versions.json" "$work/real-clients.md" || status=$?
echo "real-clients: --check: the suite ran in $((SECONDS - started)) s; comparing with $doc" >&2
"${helper[@]}" compare "$doc" "$work/real-clients.md" || status=1
exit $status
