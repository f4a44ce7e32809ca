#!/bin/sh
# Run-contract wrapper (docs/running-clients.md) for the curl command-line tool, Debian's curl
# 7.88.1, on the http-basic, http-digest and proxy flows. curl is called as a user types it:
#
#   http-basic    curl -sS -f -L -u USER:PASS URL                     (CURL_AUTH=basic, curl's default)
#                 curl -sS -f -L --anyauth -u USER:PASS URL           (CURL_AUTH=any)
#   http-digest   curl -sS -f -L --digest -u USER:PASS URL
#   proxy         curl -sS -f -L -x PROXY --proxy-user PU:PP [--proxy-anyauth] -u USER:PASS [--anyauth] URL
#
# Adapted, nothing else:
# - the credentials go in a curl config file (-K, mode 0600) instead of the command line, so
#   that they do not show in `ps`; curl reads `user = "…"` exactly as it reads -u (man curl, -K);
# - `--max-time` is SAMLH_REQUEST_TIMEOUT, the contract's per-answer limit (curl has none by default);
# - the body curl prints is the result's resource; curl's exit status and stderr are the
#   error (with -f, curl exits 22 on an HTTP status >= 400 and names it: "returned error: 401").
set -u

mode=${CURL_AUTH:-basic}
work=$(mktemp -d) || exit 70
trap 'rm -rf "$work"' EXIT
umask 077

# A curl config string: backslash and double quote escaped (man curl, -K: "\\", "\"").
quoted() { printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"; }

{
  printf 'user = %s\n' "$(quoted "$SAMLH_USERNAME:$SAMLH_PASSWORD")"
  if [ "$SAMLH_FLOW" = proxy ]; then
    printf 'proxy = %s\n' "$(quoted "$SAMLH_PROXY_URL")"
    printf 'proxy-user = %s\n' "$(quoted "$SAMLH_PROXY_USERNAME:$SAMLH_PROXY_PASSWORD")"
  fi
} >"$work/auth.conf"

set -- -sS -f -L --max-time "${SAMLH_REQUEST_TIMEOUT:-10}" -K "$work/auth.conf"
case "$SAMLH_FLOW:$mode" in
  http-digest:*) set -- "$@" --digest ;;
  *:any) set -- "$@" --anyauth ;;
esac
if [ "$SAMLH_FLOW" = proxy ] && [ "$mode" = any ]; then set -- "$@" --proxy-anyauth; fi

curl "$@" -o "$work/body" "$SAMLH_START_URL" 2>"$work/stderr"
status=$?
cat "$work/stderr" >&2

python3 - "$status" "$work/body" "$work/stderr" "$SAMLH_RESULT_FILE" "$mode" <<'EOF'
import json, sys
status, body, stderr, result, mode = sys.argv[1:]
read = lambda path: open(path, encoding="utf-8", errors="replace").read() if __import__("os").path.exists(path) else ""
ok = status == "0"
json.dump({"outcome": "success" if ok else "failure", "resource": read(body) if ok else "",
           "error": "" if ok else f"curl exit {status}: {read(stderr).strip()}",
           "details": {"client": "curl", "auth": mode, "exit": status}}, open(result, "w"))
EOF
exit "$status"
