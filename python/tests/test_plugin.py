"""The plugin as pytest loads it: its README example, teardown, failure reports, configuration."""
import os
import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "python" / "README.md"


def test_the_readme_example_passes_as_written(pytester):
    example = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    assert len(example.strip().splitlines()) <= 14
    pytester.mkpydir("myapp")
    pytester.path.joinpath("myapp", "sso.py").write_text("from websso_client import log_in  # noqa: F401\n")
    pytester.makepyfile(test_readme=example)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_a_failing_test_reports_serve_stderr_and_serve_is_stopped_and_reaped(pytester):
    pid_file = pytester.path / "pid"
    pytester.makepyfile(test_failing=f"""
        def test_fails(samlharness_serve):
            idp = samlharness_serve(scenario="web-sso.shibboleth-form-login")
            open({str(pid_file)!r}, "w").write(str(idp.process.pid))
            assert idp.username == "somebody else"
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*samlharness serve web-sso.shibboleth-form-login: stderr*",
                                 "$ */samlharness serve --host 127.0.0.1 --port 0 *"])
    with pytest.raises(ProcessLookupError):       # not even a zombie: stopped and waited for
        os.kill(int(pid_file.read_text()), 0)


def test_a_missing_binary_is_named_with_the_ways_to_give_one(pytester, monkeypatch):
    monkeypatch.delenv("SAMLH_BIN", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    pytester.makepyfile(test_x="def test_x(samlharness_serve):\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*samlharness not found: pass --samlharness-bin PATH, set SAMLH_BIN, or put samlharness on PATH*"])


def test_the_option_wins_over_the_environment(pytester, monkeypatch):
    binary = os.environ["SAMLH_BIN"]
    monkeypatch.setenv("SAMLH_BIN", "/nonexistent/samlharness")
    pytester.makepyfile(test_x="def test_x(samlharness_bin):\n    assert samlharness_bin == %r\n" % binary)
    pytester.runpytest("-p", "no:cacheprovider", "--samlharness-bin", binary).assert_outcomes(passed=1)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*$SAMLH_BIN names '/nonexistent/samlharness', which is not an executable file*"])


def test_samlh_home_names_the_catalog_and_profiles(samlharness_serve, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "Scenarios" / "mine").mkdir(parents=True)
    shutil.copy(REPO / "Scenarios/web-sso/web-sso.shibboleth-form-login.yaml", home / "Scenarios/mine/web-sso.shibboleth-form-login.yaml")
    (home / "MockIdP").symlink_to(REPO / "MockIdP")
    monkeypatch.setenv("SAMLH_HOME", str(home))
    idp = samlharness_serve(scenario="web-sso.shibboleth-form-login")
    assert idp.scenario_file == str(home / "Scenarios/mine/web-sso.shibboleth-form-login.yaml")
    assert "--mockidp-dir" in idp.arguments and str(home / "MockIdP") in idp.arguments
    idp.stop()
