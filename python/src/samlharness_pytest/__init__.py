"""pytest-samlharness: SAMLHarness's mocks and verdicts from pytest.

Fixtures (registered through the `pytest11` entry point):

- `samlharness_serve(scenario=…, profile=…, knobs=…, expect=…)` starts `samlharness serve` and
  returns a `ServeSession` (URLs, user, password, `env`, `verdicts()`);
- `samlharness_run(function, scenario=… | filters=…)` judges a Python client function with
  `samlharness run` and returns a `RunResult`.

The same API without pytest: `ServeSession.start(…)` and `run_client(…)`.
"""
from ._core import SamlharnessError, ScenarioResult, Verdict, find_binary
from ._env import ClientEnv
from .run import ClientCall, RunResult, run_client
from .serve import ServeSession

__version__ = "0.1.0"
__all__ = ["ClientCall", "ClientEnv", "RunResult", "SamlharnessError", "ScenarioResult", "ServeSession",
           "Verdict", "find_binary", "run_client"]
