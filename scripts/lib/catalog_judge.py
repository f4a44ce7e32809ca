#!/usr/bin/env python3
"""Did a whole-catalog run pass? (scripts/package-check.sh)

    python3 scripts/lib/catalog_judge.py LABEL REPORT_DIR LIST_JSONL RUN_EXIT_STATUS

Every scenario `samlharness list --json` names must have a result in REPORT_DIR/report.json
(else results.jsonl) that is `pass`; the only other outcome accepted is `skipped` of a scenario
tagged kerberos (they need a realm: scripts/setup-kerberos.sh). Prints one summary line; exit 1
listing each scenario that did not pass, its outcome, reason and failing checks.
"""
import json
import os
import sys

label, report_dir, list_file, status = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
problems = []
if status:
    problems.append(f"`samlharness run` exited {status}")

results = None
try:
    with open(os.path.join(report_dir, "report.json")) as f:
        results = [r for run in json.load(f).get("runs", []) for r in run.get("results", [])]
except (OSError, ValueError) as e:
    problems.append(f"no readable report.json ({e})")
    try:
        with open(os.path.join(report_dir, "results.jsonl")) as f:
            results = [r for r in map(json.loads, filter(str.strip, f)) if "scenario" in r and "status" in r]
    except (OSError, ValueError) as e2:
        problems.append(f"no readable results.jsonl either ({e2})")

catalog = {}
try:
    with open(list_file) as f:
        for line in f:
            if line.strip().startswith("{"):
                s = json.loads(line)
                catalog[s["id"]] = s
except (OSError, ValueError, KeyError) as e:
    problems.append(f"`samlharness list --json` gave nothing usable ({e})")
if not catalog:
    problems.append("`samlharness list --json` listed no scenario")

bad, skipped, passed, seen = [], [], 0, set()
for r in results or []:
    sid, st = r.get("scenario", "?"), r.get("status", "?")
    seen.add(sid)
    tags = catalog.get(sid, {}).get("tags", [])
    if st == "pass":
        passed += 1
    elif st == "skipped" and "kerberos" in tags:
        skipped.append(sid)
    else:
        why = ((r.get("reason") or "").strip().splitlines() or ["(no reason)"])[0][:200]
        failing = [v.get("check") for v in r.get("verdicts", []) if v.get("status") == "fail"]
        if failing:
            why += f" [failing: {', '.join(failing[:6])}{'…' if len(failing) > 6 else ''}]"
        bad.append(f"{sid}: {st}: {why}")
missing = sorted(set(catalog) - seen)
if missing:
    problems.append(f"{len(missing)} scenario(s) of the catalog have no result: {', '.join(missing[:20])}")
if bad:
    problems.append(f"{len(bad)} scenario(s) did not pass:\n    " + "\n    ".join(bad))
print(f"{label}: {len(results or [])} scenarios of {len(catalog)}: {passed} pass, {len(skipped)} skipped (kerberos), "
      f"{len(bad)} other")
if problems:
    for p in problems:
        print(f"{label}: {p}", file=sys.stderr)
    sys.exit(1)
