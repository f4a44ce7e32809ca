"""What the fixtures share: finding the binary and the catalog, and reading verdicts."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional


class SamlharnessError(Exception):
    """samlharness could not be found, refused its configuration (exit 2) or stopped abnormally.

    Not a conformance failure: those come back as results whose `passed` is false."""


def find_binary(explicit: Optional[str] = None) -> str:
    """The samlharness binary: `explicit` (--samlharness-bin), else $SAMLH_BIN, else PATH."""
    for source, candidate in (("--samlharness-bin", explicit), ("$SAMLH_BIN", os.environ.get("SAMLH_BIN"))):
        if candidate:
            path = shutil.which(candidate) if os.sep not in candidate else candidate
            if path and os.path.isfile(path) and os.access(path, os.X_OK):
                return os.path.abspath(path)
            raise SamlharnessError(f"{source} names {candidate!r}, which is not an executable file")
    path = shutil.which("samlharness")
    if path:
        return path
    raise SamlharnessError(
        "samlharness not found: pass --samlharness-bin PATH, set SAMLH_BIN, or put samlharness on PATH "
        "(apt-get install ./samlharness_*.deb, or `swift build -c release` in a SAMLHarness checkout)")


def home() -> Optional[Path]:
    """$SAMLH_HOME: a SAMLHarness checkout or data folder holding Scenarios/ and MockIdP/."""
    value = os.environ.get("SAMLH_HOME")
    return Path(value).resolve() if value else None


def mockidp_args() -> List[str]:
    """`--mockidp-dir` when $SAMLH_HOME says where the profiles are; else the binary's default
    (beside itself, its installed share/samlharness, or above the working directory)."""
    h = home()
    return ["--mockidp-dir", str(h / "MockIdP")] if h else []


def catalog_paths() -> List[str]:
    """The scenario folder when $SAMLH_HOME names one; else the binary's default catalog."""
    h = home()
    return [str(h / "Scenarios")] if h else []


_catalog_cache: Dict[tuple, Dict[str, str]] = {}
_catalog_lock = threading.Lock()


def scenario_file(binary: str, scenario: str) -> str:
    """A scenario given by file (any path that exists, or ends in .yaml/.yml) or by id (looked
    up once per binary and catalog with `samlharness list --json`)."""
    if scenario.endswith((".yaml", ".yml")) or os.path.exists(scenario):
        if not os.path.isfile(scenario):
            raise SamlharnessError(f"no scenario file {scenario}")
        return os.path.abspath(scenario)
    key = (binary, os.environ.get("SAMLH_HOME", ""), os.getcwd())
    with _catalog_lock:
        if key not in _catalog_cache:
            done = subprocess.run([binary, "list", "--json", *catalog_paths()], capture_output=True, text=True,
                                  timeout=120)
            if done.returncode != 0:
                raise SamlharnessError(f"`samlharness list` exited {done.returncode}: {done.stderr.strip()}")
            entries = (json.loads(line) for line in done.stdout.splitlines() if line.strip())
            _catalog_cache[key] = {entry["id"]: entry["file"] for entry in entries}
        catalog = _catalog_cache[key]
    if scenario not in catalog:
        near = sorted(name for name in catalog if scenario.split(".")[0] in name)[:5]
        raise SamlharnessError(f"no scenario {scenario!r} in the catalog ({len(catalog)} scenarios)"
                               + (f"; did you mean {', '.join(near)}?" if near else ""))
    return catalog[scenario]


@dataclass
class Verdict:
    """One check's verdict: `status` is pass, fail, not-applicable or not-evaluated."""
    check: str
    status: str
    level: str = "required"
    reason: str = ""
    evidence: List[Dict[str, Any]] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.status} {self.check} ({self.level}): {self.reason}"


@dataclass
class ScenarioResult:
    """A judged scenario: what `serve --verdicts-out` writes and `run` streams to results.jsonl.

    `status`: pass, fail (a required check failed), crashed, error or skipped."""
    scenario: str
    status: str
    verdicts: List[Verdict]
    reason: str = ""
    flow: str = ""
    client: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ScenarioResult":
        verdicts = [Verdict(check=v["check"], status=v["status"], level=v.get("level", "required"),
                            reason=v.get("reason", ""), evidence=v.get("evidence", []))
                    for v in data.get("verdicts", [])]
        return cls(scenario=data.get("scenario", ""), status=data.get("status", ""), verdicts=verdicts,
                   reason=data.get("reason", ""), flow=data.get("flow", ""), client=data.get("client"), raw=dict(data))

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def failed_checks(self) -> List[str]:
        """The checks that failed, required or recommended, in the order judged."""
        return [v.check for v in self.verdicts if v.status == "fail"]

    @property
    def passed_checks(self) -> List[str]:
        return [v.check for v in self.verdicts if v.status == "pass"]

    def verdict(self, check: str) -> Verdict:
        for v in self.verdicts:
            if v.check == check:
                return v
        raise KeyError(f"{self.scenario} has no verdict for {check}; it has {', '.join(v.check for v in self.verdicts)}")

    def __getitem__(self, check: str) -> Verdict:
        return self.verdict(check)

    def explain(self) -> str:
        lines = [f"{self.status.upper()} {self.scenario}" + (f": {self.reason}" if self.reason else "")]
        lines += [f"  {v}" for v in self.verdicts]
        if self.client:
            error = self.client.get("error")
            lines.append(f"  client: outcome {self.client.get('outcome')!r}" + (f", error {error!r}" if error else ""))
        return "\n".join(lines)

    __str__ = explain


def read_results(path: Path) -> List[ScenarioResult]:
    """The scenario lines of a results.jsonl (its run, catalog and end lines skipped)."""
    results = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            data = json.loads(line)
            if "scenario" in data and "status" in data and "event" not in data:
                results.append(ScenarioResult.from_json(data))
    return results


def tail(text: str, lines: int = 60) -> str:
    kept = text.splitlines()[-lines:]
    return "\n".join(kept)


def quoted(arguments: Iterable[str]) -> str:
    import shlex
    return " ".join(shlex.quote(a) for a in arguments)
