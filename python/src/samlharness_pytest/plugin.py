"""The pytest plugin: options, fixtures, and serve's stderr in a failing test's report."""
from __future__ import annotations

from typing import Any, List

import pytest

from ._core import SamlharnessError, find_binary, tail
from .run import RunResult, run_client
from .serve import ServeSession

_USED = pytest.StashKey[List[Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("samlharness")
    group.addoption("--samlharness-bin", metavar="PATH", default=None,
                    help="the samlharness binary (default: $SAMLH_BIN, else samlharness on PATH); "
                         "the catalog and profiles: $SAMLH_HOME, else where the binary finds them")


@pytest.fixture(scope="session")
def samlharness_bin(pytestconfig: pytest.Config) -> str:
    """The samlharness binary's path: --samlharness-bin, $SAMLH_BIN, or PATH."""
    try:
        return find_binary(pytestconfig.getoption("samlharness_bin"))
    except SamlharnessError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def samlharness_serve(request: pytest.FixtureRequest, samlharness_bin: str, tmp_path_factory: pytest.TempPathFactory):
    """A factory: `samlharness_serve(scenario="web-sso.shibboleth-form-login")` (or `profile=…`,
    `knobs=[…]`, `expect="success"|"failure"`, `time_scale=…`, `seed=…`, `extra_args=[…]`) starts
    `samlharness serve` on loopback and returns a ServeSession once its ready line is read.
    Every session is stopped and reaped at teardown; a failing test's report gets its stderr."""
    sessions: List[ServeSession] = []

    def start(scenario: str = None, **options: Any) -> ServeSession:
        directory = tmp_path_factory.mktemp("samlharness-serve", numbered=True)
        session = ServeSession.start(scenario=scenario, binary=samlharness_bin, directory=directory, **options)
        sessions.append(session)
        request.node.stash.setdefault(_USED, []).append(session)
        return session

    yield start
    for session in sessions:
        session.stop()


@pytest.fixture
def samlharness_run(request: pytest.FixtureRequest, samlharness_bin: str, tmp_path_factory: pytest.TempPathFactory):
    """`samlharness_run(client, scenario=… | filters=[…], jobs=1, time_scale=…)`: runs the
    scenarios against the function `client(env) -> {"outcome", "resource", "error"}` in this
    process, through `samlharness run`, and returns the RunResult (`passed`, `scenarios`,
    `failed_checks`, `explain()`)."""

    def run(function, **options: Any) -> RunResult:
        options.setdefault("report_dir", tmp_path_factory.mktemp("samlharness-run", numbered=True))
        result = run_client(function, binary=samlharness_bin, **options)
        request.node.stash.setdefault(_USED, []).append(result)
        return result

    return run


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if not report.failed:
        return report
    for used in item.stash.get(_USED, []):
        if isinstance(used, ServeSession):
            title = f"samlharness serve {(used.scenario or {}).get('id') or used.ready.get('profile') or ''}".strip()
            report.sections.append((f"{title}: stderr", f"$ {' '.join(used.arguments)}\n{tail(used.stderr, 120)}\n"
                                    f"(session files: {used.directory})"))
        elif isinstance(used, RunResult):
            report.sections.append(("samlharness run", f"{used.explain()}\n\n{tail(used.output, 60)}\n"
                                    f"{tail(used.stderr, 40)}"))
    return report
