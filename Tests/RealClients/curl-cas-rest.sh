#!/bin/sh
# Run-contract wrapper (docs/running-clients.md): a CAS REST client in shell with curl 7.88.1,
# the three calls Apereo's "REST Protocol" page shows (apereo.github.io/cas, Rest protocol):
#
#   curl -X POST -d username=…&password=… $CAS/v1/tickets       -> 201, Location: …/TGT-…
#   curl -X POST -d service=… $TGT_URL                          -> 200, body ST-…
#   curl "$CAS/p3/serviceValidate?service=…&ticket=ST-…"        -> <cas:authenticationSuccess>
#
# Adapted, nothing else:
# - the form values go through curl's --data-urlencode (and -G --data-urlencode for the
#   validation's query) rather than the page's literal `-d "username=casuser&password=Mellon"`:
#   with -d a password holding `&`, `+` or `%` is sent as form syntax, and a script fed real
#   passwords has to encode them; curl's own option is how it is done;
# - `--max-time` is SAMLH_REQUEST_TIMEOUT; no -k (the mocks' CA, when https, is in the store);
# - the validation response is the result's resource; a `<cas:authenticationFailure code=…>`,
#   a non-201 TGT answer or a non-200 ST answer is the error.
set -u

work=$(mktemp -d) || exit 70
trap 'rm -rf "$work"' EXIT
umask 077
timeout=${SAMLH_REQUEST_TIMEOUT:-10}
tickets=$SAMLH_START_URL
service=$SAMLH_CAS_SERVICE

# The password goes in a file for --data-urlencode "password@FILE", not on the command line.
printf '%s' "$SAMLH_PASSWORD" >"$work/password"

result() {  # outcome error [resource-file]
  python3 - "$SAMLH_RESULT_FILE" "$1" "$2" "${3:-}" <<'EOF'
import json, os, sys
result, outcome, error, resource = sys.argv[1:]
text = open(resource, encoding="utf-8", errors="replace").read() if resource and os.path.exists(resource) else ""
json.dump({"outcome": outcome, "error": error, "resource": text, "details": {"client": "curl CAS REST (shell)"}},
          open(result, "w"))
EOF
  [ "$1" = success ]
  exit $?
}

# 1. The ticket-granting ticket.
code=$(curl -sS --max-time "$timeout" -X POST --data-urlencode "username=$SAMLH_USERNAME" \
  --data-urlencode "password@$work/password" -o "$work/tgt-body" -w '%{http_code}\n%header{location}' \
  "$tickets" 2>"$work/stderr") || result failure "curl: $(cat "$work/stderr")"
status=$(printf '%s\n' "$code" | sed -n 1p)
tgt=$(printf '%s\n' "$code" | sed -n 2p)
if [ "$status" != 201 ] || [ -z "$tgt" ]; then
  result failure "HTTP $status from $tickets (no TGT): $(head -c 300 "$work/tgt-body")"
fi

# 2. The service ticket.
code=$(curl -sS --max-time "$timeout" -X POST --data-urlencode "service=$service" -o "$work/st" \
  -w '%{http_code}' "$tgt" 2>"$work/stderr") || result failure "curl: $(cat "$work/stderr")"
if [ "$code" != 200 ]; then
  result failure "HTTP $code from the TGT URL (no ST): $(head -c 300 "$work/st")"
fi
ticket=$(tr -d '\r\n' <"$work/st")

# 3. The validation.
code=$(curl -sS --max-time "$timeout" -G --data-urlencode "service=$service" --data-urlencode "ticket=$ticket" \
  -o "$work/validation" -w '%{http_code}' "$SAMLH_CAS_VALIDATE_URL" 2>"$work/stderr") \
  || result failure "curl: $(cat "$work/stderr")"
if grep -q '<cas:authenticationSuccess' "$work/validation"; then
  result success "" "$work/validation"
fi
failure=$(grep -o '<cas:authenticationFailure[^>]*>[^<]*' "$work/validation" | head -1)
result failure "validation HTTP $code: ${failure:-$(head -c 300 "$work/validation")}"
