"""The samlharness_serve fixture against a real samlharness serve and a requests client."""
import json
import urllib.request

import pytest

from samlharness_pytest import SamlharnessError
from websso_client import log_in

SCENARIO = "web-sso.shibboleth-form-login"


def test_a_good_login_passes_every_check(samlharness_serve):
    idp = samlharness_serve(scenario=SCENARIO)
    assert idp.start_url == idp.sp_url + "/secure"
    assert idp.username == "alice" and "+" in idp.password            # the scenario's user, as run gives it
    assert idp.env.flow == "web-sso" and idp.env["SAMLH_SCENARIO"] == SCENARIO
    assert idp.env.idp_entity_id == idp.ready["idp"]["entity_id"]
    state = json.load(urllib.request.urlopen(idp.control_url + "/state", timeout=10))
    assert state                                                         # the control API answers

    result = log_in(idp.env)
    assert result["outcome"] == "success" and "SECRET-" in result["resource"]

    verdicts = idp.verdicts()
    assert verdicts.passed, verdicts.explain()
    assert verdicts.scenario == SCENARIO and verdicts.status == "pass"
    assert verdicts["flow.resource-obtained"].status == "pass"
    assert {"encoding.form-percent-encoded", "flow.consent-answered"} <= set(verdicts.passed_checks)
    assert verdicts.failed_checks == []
    assert not idp.running and idp.returncode == 0
    assert idp.verdicts() is verdicts                                     # judged once
    assert len(json.loads(idp.har_path.read_text())["log"]["entries"]) >= 8   # the HAR, written on exit
    assert "PASS web-sso.shibboleth-form-login" in idp.stderr


def test_a_form_body_not_percent_encoded_fails_its_check(samlharness_serve):
    idp = samlharness_serve(scenario=SCENARIO)
    log_in(idp.env, percent_encode=False)
    verdicts = idp.verdicts()
    assert verdicts.status == "fail"
    assert "encoding.form-percent-encoded" in verdicts.failed_checks
    assert "not percent-encoded" in verdicts["encoding.form-percent-encoded"].reason


def test_the_wrong_audience_knob_judged_as_a_failure_to_report(samlharness_serve):
    idp = samlharness_serve(scenario=SCENARIO, knobs=["wrong-audience"], expect="failure")
    assert idp.ready["knobs"]
    result = log_in(idp.env)
    assert result["outcome"] == "failure" and "403" in result["error"]
    verdicts = idp.verdicts()
    assert verdicts.passed, verdicts.explain()
    assert "audience.mismatch" in verdicts["flow.failure-reported"].reason


def test_the_wrong_audience_knob_fails_a_login_that_must_succeed(samlharness_serve):
    idp = samlharness_serve(scenario=SCENARIO, knobs=["wrong-audience"], expect="success")
    log_in(idp.env)
    verdicts = idp.verdicts()
    assert verdicts.status == "fail"
    assert "flow.resource-obtained" in verdicts.failed_checks
    assert "audience.mismatch" in verdicts["flow.resource-obtained"].reason


def test_a_knob_on_a_scenario_without_expect_is_refused(samlharness_serve):
    with pytest.raises(SamlharnessError, match=r"exited 2 before its ready line(.|\n)*--expect success"):
        samlharness_serve(scenario=SCENARIO, knobs=["wrong-audience"])


def test_a_profile_serves_without_judging(samlharness_serve):
    idp = samlharness_serve(profile="simplesamlphp")
    assert idp.ready["profile"] == "simplesamlphp" and idp.scenario is None
    assert idp.start_url == idp.url("sp", "secure")
    result = log_in(idp.env)
    assert result["outcome"] == "success" and "SECRET-" in result["resource"]
    with pytest.raises(SamlharnessError, match="nothing is judged without a scenario"):
        idp.verdicts()
    assert not idp.running


def test_an_unknown_scenario_names_the_near_ones(samlharness_serve):
    with pytest.raises(SamlharnessError, match="no scenario 'web-sso.shibboleth-form' .*did you mean"):
        samlharness_serve(scenario="web-sso.shibboleth-form")


def test_a_profile_with_a_knob_of_ones_own(samlharness_serve):
    idp = samlharness_serve(profile="simplesamlphp", knobs=["wrong-audience"])
    assert [knob for knob in idp.ready["knobs"] if "wrong-audience" in str(knob)]
    result = log_in(idp.env)
    assert result["outcome"] == "failure" and "HTTP 403" in result["error"]
