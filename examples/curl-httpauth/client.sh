#!/bin/sh
# HTTP Basic and Digest with curl: a client for `samlharness run` (flows http-basic, http-digest).
#   samlharness run --client 'sh examples/curl-httpauth/client.sh' --filter flow:http-basic --filter flow:http-digest
#
# --anyauth: the first request goes without credentials; curl answers the 401 in the scheme the
#   server asked for (Basic or Digest; a Digest stale=true is answered with the new nonce).
# -L: follow redirects; curl sends the credentials to the host they were given for only.
# -f: an HTTP status >= 400 is a failure (exit 22, "The requested URL returned error: 401").
set -u
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
umask 077

# The credentials go in a config file read with -K, not on the command line (`ps` shows that).
quote() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'; }
printf 'user = "%s:%s"\n' "$(quote "$SAMLH_USERNAME")" "$(quote "$SAMLH_PASSWORD")" >"$work/config"
# Trust the harness's test CA when the mocks speak https (SAMLH_CA_FILE), and only it.
[ -n "${SAMLH_CA_FILE:-}" ] && printf 'cacert = "%s"\n' "$(quote "$SAMLH_CA_FILE")" >>"$work/config"

curl -sS -f -L --anyauth -K "$work/config" --max-time "${SAMLH_REQUEST_TIMEOUT:-10}" \
     -o "$work/body" "$SAMLH_START_URL" 2>"$work/error"
status=$?

# A JSON string from stdin: backslash, quote, tab and CR escaped, lines joined with \n.
json() {
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' -e 's/\r/\\r/g' |
    awk '{ printf "%s%s", (NR > 1 ? "\\n" : "\""), $0 } END { if (NR == 0) printf "\""; printf "\"" }'
}
if [ "$status" -eq 0 ]; then
  printf '{"outcome": "success", "resource": %s}\n' "$(json <"$work/body")" >"$SAMLH_RESULT_FILE"
else
  error=$({ printf 'curl exit %s: ' "$status"; cat "$work/error"; } | json)  # curl's own words
  printf '{"outcome": "failure", "error": %s}\n' "$error" >"$SAMLH_RESULT_FILE"
fi
exit "$status"
