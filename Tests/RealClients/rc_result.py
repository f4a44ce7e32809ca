"""The run contract's result file (docs/running-clients.md), shared by the Python wrappers here.

report(outcome, resource, error, details) writes {"outcome", "resource", "error", "details"} to
SAMLH_RESULT_FILE and exits 0 on success, 1 on a reported failure. failure(error) is the
library's own exception text, prefixed with its type.
"""
import json
import os
import sys


def report(ok, resource="", error="", **details):
    result = {"outcome": "success" if ok else "failure", "resource": resource or "",
              "error": "" if ok else error, "details": {k: str(v) for k, v in details.items()}}
    with open(os.environ["SAMLH_RESULT_FILE"], "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)
    sys.exit(0 if ok else 1)


def failure(error, resource="", **details):
    report(False, resource, "%s: %s" % (type(error).__name__, error), **details)


def request_timeout():
    return float(os.environ.get("SAMLH_REQUEST_TIMEOUT", "10"))
