"""The result the walking clients (replay_requests_client.py, replay_mechanize_client.py) write
for `samlharness run` (docs/running-clients.md): success when the last page is a 200 without a
password field; otherwise a failure naming why, where, and the start of the page."""
import json


def page_result(url, status, body, pages, shows_login_form):
    """The result for the last page of a walk; `shows_login_form` is the client's own test."""
    ok = status == 200 and not shows_login_form
    error = ""
    if not ok:
        why = "the login form came back" if shows_login_form else "HTTP %d" % status
        error = "%s at %s: %s" % (why, url, body[:2000])
    return {"outcome": "success" if ok else "failure", "resource": body, "error": error,
            "details": {"url": url, "status": str(status), "pages": json.dumps(pages)}}


def error_result(error):
    """The result when the walk stopped on an exception (a network error, an unreadable page)."""
    return {"outcome": "failure", "resource": "", "error": "%s: %s" % (type(error).__name__, error)}


def write(result, path):
    """Writes the result and returns the exit status: 0 on success, 1 on a reported failure."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)
    return 0 if result["outcome"] == "success" else 1
