#!/usr/bin/env python3
"""A client under test for `samlharness run`: Web SSO with mechanize (a scripted browser).

Reads the runner's SAMLH_* variables, logs in through websso_mechanize.py's logic and writes
{"outcome", "error", "resource"} to SAMLH_RESULT_FILE. mechanize gives up after a wrong
password (the login form comes back), so a bad-password loop ends at once; it has no timeout
of its own, so the runner stops it at the scenario's timeout.
"""
import io
import json
import os
import sys
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import websso_mechanize  # noqa: E402

env = os.environ
args = ["--start", env["SAMLH_START_URL"], "--username", env.get("SAMLH_USERNAME", ""),
        "--password", env.get("SAMLH_PASSWORD", "")]
if env.get("SAMLH_SECOND_FACTOR_CODE"):
    args += ["--code", env["SAMLH_SECOND_FACTOR_CODE"]]
out = io.StringIO()
try:
    with redirect_stdout(out):
        status = websso_mechanize.main(args)
    page = json.loads(out.getvalue())
    ok = status == 0 and "/secure" in page["url"]
    result = {"outcome": "success" if ok else "failure", "resource": page["body"],
              "error": "" if ok else "HTTP %d at %s: %s" % (page["status"], page["url"], page["body"][:2000])}
except Exception as error:  # a network error, a page mechanize cannot parse
    result = {"outcome": "failure", "error": "%s: %s" % (type(error).__name__, error)}
with open(env["SAMLH_RESULT_FILE"], "w") as f:
    json.dump(result, f)
sys.exit(0 if result["outcome"] == "success" else 1)
