#!/usr/bin/env python3
"""docs/real-clients.md from a run of the real-client suite (scripts/real-clients.sh runs it).

  real_clients_doc.py render  SUITE VERDICTS RUN_DIR VERSIONS OUT   write the doc; exit 1 when a
                              non-pass has no verdict (or a verdict matches nothing), listing them
  real_clients_doc.py compare OLD NEW       per (client, scenario) row: "N passed, N failed"; exit 1
                              when the documents differ (the difference printed)
  real_clients_doc.py flaps   SUITE RUN_DIR...   the scenarios whose row differs between runs

RUN_DIR holds one folder per suite entry (its --report-dir, with results.jsonl). VERSIONS is a
JSON object client name -> version text. Everything written is independent of the run's ports,
timings and IDs, so two runs with the same verdicts write the same bytes. Stdlib + PyYAML.
"""
import difflib
import json
import os
import re
import sys

import yaml

DOC_TABLE_START = "<!-- every-scenario -->"
EXCERPT = 160

# Run-dependent text in reasons and excerpts: ports, XML IDs, instants, durations, cookie values.
NORMALISE = [
    # a Python logging prefix (aws-adfs): "2026-11-26 18:31:23,170 [module file:func] [pid-Process] [tid-Thread] - "
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (\[[^\]]*\] )*- "), lambda m: ""),
    (re.compile(r"(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}\b"), lambda m: m.group(1) + ":PORT"),
    (re.compile(r"\b_[0-9a-f]{16,}\b"), lambda m: "_ID"),
    (re.compile(r"\b[0-9a-f]{24,}\b"), lambda m: "HEX"),
    (re.compile(r"[A-Za-z0-9+/]{40,}={0,2}"), lambda m: "BASE64"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), lambda m: "INSTANT"),
    (re.compile(r"\b\d+\.\d+ ?(s|ms)\b"), lambda m: "N " + m.group(1)),
    (re.compile(r"\b\d{5,}\b"), lambda m: "N"),
    (re.compile(r"\b(ST|TGT|PT)-[0-9]+-[A-Za-z0-9_.-]+"), lambda m: m.group(1) + "-…"),
    (re.compile(r"ss:mem:[0-9a-f]+"), lambda m: "ss:mem:…"),
    (re.compile(r"(nonce|cnonce|opaque|response)=\"[^\"]*\""), lambda m: m.group(1) + '="…"'),
]


def normalise(text, limit=EXCERPT):
    text = " ".join((text or "").split())
    for pattern, repl in NORMALISE:
        text = pattern.sub(repl, text)
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def cell(text):
    return (text or "").replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def code(text):
    text = cell(text).replace("`", "'")
    return "`" + text + "`" if text else ""


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def results(run_dir, name):
    """The scenario results of one entry, by scenario id (None when the entry has no results)."""
    path = os.path.join(run_dir, name, "results.jsonl")
    if not os.path.exists(path):
        return None
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if "scenario" in record and "verdicts" in record:
                out[record["scenario"]] = record
    return out


def non_passes(record):
    """(check, reason, evidence) for each reason the scenario is not a pass."""
    items = []
    for verdict in record.get("verdicts", []):
        if verdict.get("level") == "required" and verdict.get("status") == "fail":
            evidence = ""
            for item in verdict.get("evidence", []):
                text = item.get("excerpt") or item.get("detail") or ""
                if item.get("excerpt") and item.get("detail"):
                    text = item["detail"] + ": " + item["excerpt"]
                if text.strip():
                    evidence = text
                    break
            items.append((verdict["check"], normalise(verdict.get("reason", ""), 220), normalise(evidence)))
    if record["status"] != "pass" and (record["status"] == "error" or not items):
        items.insert(0, ("(" + record["status"] + ")", normalise(record.get("reason", ""), 220), ""))
    return items


def row_of(record):
    """The held row of a scenario: status and the failed required checks."""
    checks = [check for check, _, _ in non_passes(record)]
    return record["status"], ", ".join(checks)


class Verdicts:
    def __init__(self, entries):
        self.entries = entries or []
        self.used = [False] * len(self.entries)

    def find(self, client, scenario, check):
        """The number (1-based, in file order) of the entry that justifies this non-pass, or None."""
        for i, entry in enumerate(self.entries):
            if (client in entry["clients"] and scenario in entry["scenarios"]
                    and check in entry["checks"]):
                self.used[i] = True
                return i + 1
        return None

    def text(self, number):
        return " ".join(self.entries[number - 1]["why"].split())

    def unused(self):
        return [e for e, used in zip(self.entries, self.used) if not used]


def render(suite, verdicts, run_dir, versions):
    clients = suite["clients"]
    unstable = suite.get("unstable") or {}
    lines = [
        "# Real clients through `samlharness run`",
        "",
        "<!-- Generated by scripts/real-clients.sh from a run of Tests/RealClients/suite.yaml with the",
        "     reasons in Tests/RealClients/verdicts.yaml. Do not edit: `scripts/real-clients.sh --check`",
        "     runs the suite again and fails with the difference when a verdict changed. -->",
        "",
        "Widely used, unmodified clients wrapped in the run contract (docs/running-clients.md), one",
        "small wrapper each in `Tests/RealClients/` (what each must adapt is written at its top), run by",
        "`scripts/real-clients.sh` with `--jobs %s --time-scale %s` (real clients have fixed timeouts)."
        % (suite.get("jobs", 2), suite.get("time_scale", 1)),
        "Every scenario that is not a pass is listed below with the check that failed, the evidence",
        "(masked as in the results) and why the verdict is true.",
        "",
        suite.get("timing_note", "").strip(),
        "",
        "## Clients",
        "",
        "| client | version | client file | scenarios (`--filter`) |",
        "|---|---|---|---|",
    ]
    for c in clients:
        lines.append("| %s | %s | `Tests/RealClients/%s` | %s |" % (
            c["name"], cell(versions.get(c["name"], "?")), c["file"],
            "; ".join(code(f) for f in c["filters"])))
    lines += ["", "## Figures", "",
              "Scenarios per client and flow; a failed *recommended* check is a warning and does not fail",
              "its scenario (`warnings` counts the scenarios with one); `unsupported`: the client lacks an",
              "optional feature the scenario offers (its `optional:`), which is not a failure.", "",
              "| client | flow | scenarios | pass | fail | error | unsupported | warnings |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    all_rows, detail, missing = [], [], []
    totals = [0, 0, 0, 0, 0, 0]
    for c in clients:
        res = results(run_dir, c["name"])
        if res is None:
            missing.append(("%s: no results in %s" % (c["name"], os.path.join(run_dir, c["name"]))))
            continue
        by_flow = {}
        for scenario in sorted(res):
            if scenario in unstable.get(c["name"], []):
                continue
            record = res[scenario]
            by_flow.setdefault(record["flow"], []).append(record)
        for flow in sorted(by_flow):
            recs = by_flow[flow]
            counts = [len(recs)] + [sum(r["status"] == s for r in recs) for s in ("pass", "fail", "error", "unsupported")]
            warned = sum(any(v.get("level") != "required" and v.get("status") == "fail"
                             for v in r.get("verdicts", [])) for r in recs)
            lines.append("| %s | %s | %d | %d | %d | %d | %d | %d |" % ((c["name"], flow) + tuple(counts) + (warned,)))
            totals = [t + n for t, n in zip(totals, counts + [warned])]
            for r in recs:
                status, checks = row_of(r)
                all_rows.append("| %s | %s | %s | %s |" % (c["name"], r["scenario"], status, checks))
                if status != "pass":
                    detail.append((c["name"], r))
    lines.append("| **all** | | %d | %d | %d | %d | %d | %d |" % tuple(totals))
    if unstable:
        lines += ["", "## Not held: timing-sensitive scenarios", "",
                  "Their status differed between whole-suite runs on the shared 2-core machine (a dead or slow",
                  "server against the client's own fixed timeout), so they are left out of the run and of the",
                  "figures above; `Tests/RealClients/suite.yaml` says why for each.", ""]
        for name in sorted(unstable):
            lines.append("- **%s**: %s" % (name, ", ".join("`%s`" % s for s in unstable[name])))
    lines += ["", "## Every non-pass and why it is true", "",
              "Each row is a failed required check of a scenario that did not pass (`(error)`: the",
              "scenario's own error); R*n* is the reason, from `Tests/RealClients/verdicts.yaml`, given",
              "under each client's table."]
    unjustified = []
    by_client = {}
    for client, r in detail:
        by_client.setdefault(client, []).append(r)
    for client in [c["name"] for c in clients if c["name"] in by_client]:
        lines += ["", "### " + client, "", "| scenario | status | check | evidence | why |", "|---|---|---|---|---|"]
        used = []
        for r in by_client[client]:
            for check, reason, evidence in non_passes(r):
                number = verdicts.find(client, r["scenario"], check)
                if number is None:
                    unjustified.append((client, r["scenario"], check, reason, evidence))
                    why = "**UNJUSTIFIED** (no verdict)"
                else:
                    why = "R%d" % number
                    if number not in used:
                        used.append(number)
                shown = cell(reason) + (" — " + code(evidence) if evidence else "")
                lines.append("| %s | %s | `%s` | %s | %s |" % (r["scenario"], r["status"], check, shown, why))
        lines.append("")
        for number in sorted(used):
            lines.append("- **R%d** %s" % (number, cell(verdicts.text(number))))
    warnings = []
    for c in clients:
        for scenario, r in sorted((results(run_dir, c["name"]) or {}).items()):
            if scenario in unstable.get(c["name"], []):
                continue
            failed = [v["check"] for v in r.get("verdicts", [])
                      if v.get("level") != "required" and v.get("status") == "fail"]
            if failed:
                warnings.append("| %s | %s | %s |" % (c["name"], scenario, ", ".join("`%s`" % f for f in failed)))
    if warnings:
        lines += ["", "## Warnings", "",
                  "Failed *recommended* checks (the scenario passes or fails on its required checks alone).", "",
                  "| client | scenario | recommended checks failed |", "|---|---|---|"] + warnings
    lines += ["", "## Every scenario", "",
              "The held table: `scripts/real-clients.sh --check` compares these rows (status and failed",
              "required checks) and counts the scenarios that match.", "", DOC_TABLE_START,
              "<details><summary>%d scenarios</summary>" % len(all_rows), "",
              "| client | scenario | status | failed required checks |", "|---|---|---|---|"]
    lines += all_rows
    lines += ["", "</details>", ""]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text, unjustified, verdicts.unused(), missing


def held_rows(text):
    rows = {}
    if DOC_TABLE_START not in text:
        return rows
    for line in text.split(DOC_TABLE_START, 1)[1].splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if len(parts) == 4 and parts[0] not in ("client", "---"):
            rows[(parts[0], parts[1])] = (parts[2], parts[3])
    return rows


def cmd_render(argv):
    suite_path, verdicts_path, run_dir, versions_path, out = argv
    suite = load_yaml(suite_path)
    verdicts = Verdicts((load_yaml(verdicts_path) or {}).get("verdicts"))
    with open(versions_path, encoding="utf-8") as f:
        versions = json.load(f)
    text, unjustified, unused, missing = render(suite, verdicts, run_dir, versions)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    status = 0
    for problem in missing:
        print("real-clients: " + problem, file=sys.stderr)
        status = 1
    if unjustified:
        print("real-clients: %d non-pass(es) with no verdict in %s (a verdict that cannot be justified is a harness defect):"
              % (len(unjustified), verdicts_path), file=sys.stderr)
        for client, scenario, check, reason, evidence in unjustified:
            print("  %s  %s  %s: %s%s" % (client, scenario, check, reason, (" [" + evidence + "]") if evidence else ""),
                  file=sys.stderr)
        status = 1
    for entry in unused:
        print("real-clients: verdict matches no non-pass any more (remove it): clients %s scenarios %s checks %s"
              % (entry["clients"], entry["scenarios"], entry["checks"]), file=sys.stderr)
        status = 1
    return status


def cmd_compare(argv):
    old_path, new_path = argv
    old = open(old_path, encoding="utf-8").read() if os.path.exists(old_path) else ""
    new = open(new_path, encoding="utf-8").read()
    old_rows, new_rows = held_rows(old), held_rows(new)
    passed = failed = 0
    for key in sorted(set(old_rows) | set(new_rows)):
        if old_rows.get(key) == new_rows.get(key):
            passed += 1
        else:
            failed += 1
            print("changed: %s %s: held %s, now %s" % (key[0], key[1], old_rows.get(key, "(absent)"),
                                                       new_rows.get(key, "(absent)")))
    differs = old != new
    if differs:
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                   old_path, "regenerated"))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if differs or failed else 0


def cmd_flaps(argv):
    suite = load_yaml(argv[0])
    seen = {}
    for run_dir in argv[1:]:
        for c in suite["clients"]:
            for scenario, record in (results(run_dir, c["name"]) or {}).items():
                seen.setdefault((c["name"], scenario), []).append(row_of(record))
    flapping = [(k, v) for k, v in sorted(seen.items()) if len(set(v)) > 1 or len(v) != len(argv) - 1]
    for (client, scenario), rows in flapping:
        print("flaps: %s %s: %s" % (client, scenario, " / ".join("%s %s" % r for r in rows)))
    print("%d scenario(s) differ between %d runs" % (len(flapping), len(argv) - 1))
    return 1 if flapping else 0


if __name__ == "__main__":
    commands = {"render": cmd_render, "compare": cmd_compare, "flaps": cmd_flaps}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(commands[sys.argv[1]](sys.argv[2:]))
