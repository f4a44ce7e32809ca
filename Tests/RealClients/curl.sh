#!/bin/sh
# Run-contract wrapper (docs/running-clients.md) for the curl command-line tool, Debian's curl
# 7.88.1, on the http-basic, http-digest, http-ntlm and proxy flows. curl is called as a user types it:
#
#   http-basic    curl -sS -f -L -u USER:PASS URL                     (CURL_AUTH=basic, curl's default)
#                 curl -sS -f -L --anyauth -u USER:PASS URL           (CURL_AUTH=any)
#   http-digest   curl -sS -f -L --digest -u USER:PASS URL
#   http-ntlm     curl -sS -f -L --ntlm -u 'DOMAIN\USER:PASS' URL     (CURL_AUTH=basic: the method named)
#                 curl -sS -f -L --anyauth -u 'DOMAIN\USER:PASS' URL  (CURL_AUTH=any)
#                 With a UPN (SAMLH_DOMAIN empty): -u 'alice@example.org:PASS'. curl splits the
#                 user name at `\` (or `/`) only, so a UPN goes whole with an empty domain.
#                 curl -sS -f -L --negotiate -u : URL                 (a Kerberos scenario: KRB5CCNAME set)
#   proxy         curl -sS -f -L -x PROXY --proxy-user PU:PP [--proxy-anyauth] -u USER:PASS [--anyauth] URL
#
# NTLM proxy (CURL_AUTH=basic): curl runs as above first (--proxy-user alone is Basic, sent up
# front). When it ends on the proxy's 407 and that 407 offers NTLM and not Basic, curl runs once
# more as the user then types it, naming the proxy's method, the domain in the proxy user name:
#   curl … -x PROXY --proxy-ntlm --proxy-user 'DOMAIN\PU:PP' -u USER:PASS URL
# A Basic proxy never gets a second run, so its traffic is what it was. CURL_AUTH=any does not
# get this: a command line has one --proxy-user, which a Basic proxy needs as `PU` and an NTLM
# proxy as `DOMAIN\PU`, and --proxy-anyauth learns the proxy's method only inside the transfer
# (Tests/RealClients/suite.yaml leaves proxy.ntlm-proxy out for curl-anyauth).
#
# Adapted, nothing else:
# - the credentials go in a curl config file (-K, mode 0600) instead of the command line, so
#   that they do not show in `ps`; curl reads `user = "…"` exactly as it reads -u (man curl, -K);
# - `--max-time` is SAMLH_REQUEST_TIMEOUT, the contract's per-answer limit (curl has none by default);
# - the answers' header fields are saved with -D (the NTLM-proxy decision above reads them);
# - the body curl prints is the result's resource; curl's exit status and stderr are the
#   error (with -f, curl exits 22 on an HTTP status >= 400 and names it: "returned error: 401").
set -u

mode=${CURL_AUTH:-basic}
work=$(mktemp -d) || exit 70
trap 'rm -rf "$work"' EXIT
umask 077

# A curl config string: backslash and double quote escaped (man curl, -K: "\\", "\"").
quoted() { printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"; }

user=$SAMLH_USERNAME
# With a Kerberos ticket at hand (the runner's kinit: KRB5CCNAME), curl is called as its manual
# says for SPNEGO: `--negotiate -u :` (no password: the ticket cache is the credential).
kerberos=""
if [ "$SAMLH_FLOW" = http-ntlm ] && [ -n "${KRB5CCNAME:-}" ]; then kerberos=yes; fi
if [ "$SAMLH_FLOW" = http-ntlm ] && [ -n "${SAMLH_DOMAIN:-}" ]; then user="$SAMLH_DOMAIN\\$SAMLH_USERNAME"; fi

# write_config PROXY_USER: the credentials (and the proxy) in the curl config file.
write_config() {
  {
    if [ -n "$kerberos" ]; then printf 'user = ":"\n'; else printf 'user = %s\n' "$(quoted "$user:$SAMLH_PASSWORD")"; fi
    if [ "$SAMLH_FLOW" = proxy ]; then
      printf 'proxy = %s\n' "$(quoted "$SAMLH_PROXY_URL")"
      printf 'proxy-user = %s\n' "$(quoted "$1:$SAMLH_PROXY_PASSWORD")"
    fi
  } >"$work/auth.conf"
}
write_config "${SAMLH_PROXY_USERNAME:-}"

set -- -sS -f -L --max-time "${SAMLH_REQUEST_TIMEOUT:-10}" -K "$work/auth.conf" -D "$work/headers"
case "$SAMLH_FLOW:$mode" in
  http-digest:*) set -- "$@" --digest ;;
  http-ntlm:basic) if [ -n "$kerberos" ]; then set -- "$@" --negotiate; else set -- "$@" --ntlm; fi ;;
  *:any) set -- "$@" --anyauth ;;
esac
if [ "$SAMLH_FLOW" = proxy ] && [ "$mode" = any ]; then set -- "$@" --proxy-anyauth; fi

curl "$@" -o "$work/body" "$SAMLH_START_URL" 2>"$work/stderr"
status=$?
cat "$work/stderr" >&2

# offers SCHEME: a Proxy-Authenticate field of the saved answers names SCHEME.
offers() { tr -d '\r' <"$work/headers" | grep -qi "^proxy-authenticate:[[:space:]]*$1\([[:space:],]\|\$\)"; }
proxy_auth=""
if [ "$SAMLH_FLOW" = proxy ] && [ "$mode" = basic ] && [ "$status" -ne 0 ] && [ -f "$work/headers" ] \
   && tr -d '\r' <"$work/headers" | grep -q '^HTTP/[0-9.]* 407' && offers ntlm && ! offers basic; then
  proxy_user=$SAMLH_PROXY_USERNAME
  if [ -n "${SAMLH_DOMAIN:-}" ]; then proxy_user="$SAMLH_DOMAIN\\$SAMLH_PROXY_USERNAME"; fi
  write_config "$proxy_user"
  rm -f "$work/body" "$work/headers"
  curl "$@" --proxy-ntlm -o "$work/body" "$SAMLH_START_URL" 2>"$work/stderr"
  status=$?
  cat "$work/stderr" >&2
  proxy_auth="basic, then --proxy-ntlm after the 407"
fi

python3 - "$status" "$work/body" "$work/stderr" "$SAMLH_RESULT_FILE" "$mode" "$proxy_auth" <<'EOF'
import json, sys
status, body, stderr, result, mode, proxy_auth = sys.argv[1:]
read = lambda path: open(path, encoding="utf-8", errors="replace").read() if __import__("os").path.exists(path) else ""
ok = status == "0"
details = {"client": "curl", "auth": mode, "exit": status}
if proxy_auth:
    details["proxy_auth"] = proxy_auth
json.dump({"outcome": "success" if ok else "failure", "resource": read(body) if ok else "",
           "error": "" if ok else f"curl exit {status}: {read(stderr).strip()}",
           "details": details}, open(result, "w"))
EOF
exit "$status"
