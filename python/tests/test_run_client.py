"""The samlharness_run helper: a Python client function judged in-process through samlharness run."""
import threading

import pytest

from samlharness_pytest import SamlharnessError
from websso_client import log_in


def test_a_good_client_passes_and_runs_in_this_process(samlharness_run):
    seen = []

    def client(env):
        seen.append((threading.current_thread().name, dict(env)))
        return log_in(env)

    run = samlharness_run(client, scenario="web-sso.shibboleth-form-login")
    assert run.passed, run.explain()
    assert run.exit_code == 0 and run.status == "pass"
    assert run.only["flow.no-false-success"].status == "pass"
    (thread, env), = seen                                     # called once, here, in a thread of ours
    assert thread == "samlharness-client"
    assert env["SAMLH_SCENARIO"] == "web-sso.shibboleth-form-login" and env["SAMLH_FLOW"] == "web-sso"
    assert {"SAMLH_START_URL", "SAMLH_USERNAME", "SAMLH_PASSWORD", "SAMLH_RESULT_FILE", "SAMLH_TIMEOUT",
            "SAMLH_REQUEST_TIMEOUT", "SAMLH_SP_URL", "SAMLH_IDP_ENTITY_ID"} <= set(env)
    assert run.calls[0].result["outcome"] == "success"
    assert (run.report_dir / "junit.xml").exists() and (run.report_dir / "summary.md").exists()


def test_a_client_that_does_not_percent_encode_fails_the_check(samlharness_run):
    run = samlharness_run(lambda env: log_in(env, percent_encode=False), scenario="web-sso.shibboleth-form-login")
    assert not run.passed and run.exit_code == 1
    assert "encoding.form-percent-encoded" in run.failed_checks
    assert "not percent-encoded" in run.only["encoding.form-percent-encoded"].reason


def test_the_claim_is_not_the_verdict(samlharness_run):
    honest = samlharness_run(log_in, scenario="web-sso.wrong-audience")
    assert honest.passed, honest.explain()                    # it reported the SP's refusal
    liar = samlharness_run(lambda env: log_in(env, claim_success=True), scenario="web-sso.wrong-audience")
    assert liar.status == "fail"
    assert "flow.no-false-success" in liar.failed_checks


def test_an_exception_is_a_crash_as_in_a_client_script(samlharness_run):
    def client(env):
        raise RuntimeError("the audience is wrong")

    # A traceback is not a report, even when it names the expected error (docs/running-clients.md).
    run = samlharness_run(client, scenario="web-sso.wrong-audience")
    assert not run.passed and run.status == "crashed"
    assert "RuntimeError: the audience is wrong" in run.calls[0].exception
    assert "RuntimeError: the audience is wrong" in run.explain()


def test_a_filter_runs_several_scenarios_in_parallel(samlharness_run):
    run = samlharness_run(log_in, filters="flow:web-sso tag:smoke", jobs=2)
    assert run.passed, run.explain()
    assert len(run.scenarios) == len(run.calls) >= 3
    assert run["web-sso.simplesamlphp-login"].passed


def test_a_selection_that_matches_nothing_is_a_configuration_error(samlharness_run):
    with pytest.raises(SamlharnessError, match="exited 2 \\(a usage or configuration error\\)"):
        samlharness_run(log_in, scenario="web-sso.no-such-scenario")
