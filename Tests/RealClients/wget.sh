#!/bin/sh
# Run-contract wrapper (docs/running-clients.md) for GNU Wget, Debian's wget 1.21.3, on the
# http-basic, http-digest and proxy flows. wget is called as a user types it:
#
#   http-basic, http-digest   wget -O FILE --user=USER --password=PASS URL
#                             (no --auth-no-challenge: wget answers the server's challenge,
#                             Basic or Digest, whichever the 401 names — man wget)
#   proxy                     wget -O FILE -e use_proxy=yes -e http_proxy=PROXY
#                                  --proxy-user=PU --proxy-password=PP --user=USER --password=PASS URL
#
# Adapted, nothing else:
# - `--timeout` is SAMLH_REQUEST_TIMEOUT, the contract's per-answer limit (wget's default is 900 s
#   for reads); wget's other defaults (20 tries on transient errors, redirects followed) stay;
# - `--no-config` so that no ~/.wgetrc or /etc/wgetrc setting (a system proxy, auth_no_challenge)
#   changes what is judged; the `-e` commands still apply (man wget: -e runs after the wgetrc);
# - the file wget saves is the result's resource; wget's exit status (6: authentication
#   failure, 8: server error response) and its log on stderr are the error.
set -u

work=$(mktemp -d) || exit 70
trap 'rm -rf "$work"' EXIT

set -- --no-config -O "$work/body" --timeout="${SAMLH_REQUEST_TIMEOUT:-10}" \
  --user="$SAMLH_USERNAME" --password="$SAMLH_PASSWORD"
if [ "$SAMLH_FLOW" = proxy ]; then
  set -- "$@" -e use_proxy=yes -e http_proxy="$SAMLH_PROXY_URL" \
    --proxy-user="$SAMLH_PROXY_USERNAME" --proxy-password="$SAMLH_PROXY_PASSWORD"
fi

wget "$@" "$SAMLH_START_URL" 2>"$work/stderr"
status=$?
cat "$work/stderr" >&2

python3 - "$status" "$work/body" "$work/stderr" "$SAMLH_RESULT_FILE" <<'EOF'
import json, os, sys
status, body, stderr, result = sys.argv[1:]
read = lambda path: open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""
ok = status == "0"
log = read(stderr).strip()
json.dump({"outcome": "success" if ok else "failure", "resource": read(body) if ok else "",
           "error": "" if ok else f"wget exit {status}: " + " | ".join(log.splitlines()[-6:]),
           "details": {"client": "wget", "exit": status}}, open(result, "w"))
EOF
exit "$status"
