#!/usr/bin/env bash
# The release smoke suite: every user-facing verb of the binary users run (`swift build -c
# release`), end to end, asserting outcomes — exit codes, counts in the JSON each verb writes,
# files written, per-flow numbers — never times. docs/release-smoke.md.
#
#   bash scripts/release-smoke.sh            builds release (scripts/lib/build.sh; a no-op when up to date), runs
#   SAMLH_SMOKE_BIN=PATH bash scripts/release-smoke.sh
#                                            runs against PATH instead, no build (`run
#                                            --builtin reference` needs samlh-reference-client
#                                            beside the real binary)
#   SAMLH_SMOKE_KEEP=1                       keep the work directory (printed at the end)
#   LOAD_FLOWS=web-sso,ecp                   the first `load` over these flows only
#
# Prints `ok VERB …` or `FAIL VERB: reason` per step, then `N passed, N failed`; exit 1 if any
# step failed, 2 if the build failed. Each command runs under a 300 s hang detector
# (SAMLH_SMOKE_HANG_SECONDS), which is not a time bound on the outcome.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

if [[ -n "${SAMLH_SMOKE_BIN:-}" ]]; then
  bin="$SAMLH_SMOKE_BIN"
else
  # shellcheck source=lib/build.sh
  . "$repo/scripts/lib/build.sh"
  start=$SECONDS
  release_build || { echo "FAIL build: swift build ${SAMLH_RELEASE_FLAGS[*]} exited $?"; exit 2; }
  echo "built -c release in $((SECONDS - start)) s"
  bin="$repo/.build/release/samlharness"
fi
[[ -x "$bin" ]] || { echo "FAIL build: $bin is not an executable"; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/samlh-smoke.XXXXXX")"
[[ -n "${SAMLH_SMOKE_KEEP:-}" ]] || trap 'rm -rf "$work"' EXIT
hang="${SAMLH_SMOKE_HANG_SECONDS:-300}"
passed=0 failed=0
suite_start=$SECONDS

ok()   { echo "ok $1 $2"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
# h VERB-LOG ARGS…: runs the binary under the hang detector, output into $work/LOG.out/.err;
# sets $rc.
h() {
  local log="$1"; shift
  timeout -k 5 "$hang" "$bin" "$@" >"$work/$log.out" 2>"$work/$log.err"; rc=$?
}
# tailof LOG: the last line of a step's stderr, then stdout (for a FAIL reason).
tailof() { { tail -n 2 "$work/$1.err"; tail -n 2 "$work/$1.out"; } | tr '\n' ' ' | cut -c1-300; }
# judge VERB CHECK ARGS…: the outcome checks in Python (below); prints its line, counts it.
judge() {
  local verb="$1"; shift
  local line
  if line="$(python3 "$work/check.py" "$@" 2>&1)"; then ok "$verb" "$line"; else fail "$verb" "$line"; fi
}

cat >"$work/check.py" <<'PY'
import json, sys, os, re, subprocess, select, signal, urllib.request, urllib.error, base64

def die(msg): print(msg); sys.exit(1)
def jl(path): return [json.loads(l) for l in open(path) if l.strip()]

def scenario_lines(path): return [r for r in jl(path) if "scenario" in r and "status" in r]

def run(args):
    """run DIR SELECTED FLOWS_EXPECTED: every selected scenario has a pass line."""
    d, selected, flows = args[0], args[1], args[2]
    want = [l.strip() for l in open(selected) if l.strip()]
    rows = scenario_lines(os.path.join(d, "results.jsonl"))
    if sorted(r["scenario"] for r in rows) != sorted(want):
        die(f"results.jsonl holds {len(rows)} scenario lines, {len(want)} selected")
    bad = [f'{r["scenario"]}={r["status"]}' for r in rows if r["status"] != "pass"]
    if bad: die("not passed: " + ", ".join(bad))
    got_flows = {r["flow"] for r in rows}
    want_flows = set(open(flows).read().split())
    if got_flows != want_flows: die(f"flows run {sorted(got_flows)} != catalog flows {sorted(want_flows)}")
    for f in ["junit.xml", "report.json", "report.sarif", "summary.md", "report.html"]:
        if not os.path.getsize(os.path.join(d, f)): die(f"{f} empty")
    n = len(json.load(open(os.path.join(d, "report.json")))["runs"][0]["results"])
    if n != len(want): die(f"report.json has {n} results, {len(want)} expected")
    print(f"{len(rows)} scenarios over {len(got_flows)} flows, all pass; 5 report formats written")

def ids(report_dir):
    return sorted(r["scenario"] for r in json.load(open(os.path.join(report_dir, "report.json")))["runs"][0]["results"])

def rebuilt(args):
    """rebuilt ORIG NEW: report build wrote every format, same scenarios and test count."""
    orig, new = args
    for f in ["junit.xml", "report.json", "report.sarif", "summary.md", "report.html"]:
        if not os.path.isfile(os.path.join(new, f)): die(f"{f} not written")
    if ids(orig) != ids(new): die("rebuilt report.json names other scenarios")
    t = lambda d: re.search(r'<testsuites[^>]* tests="(\d+)"', open(os.path.join(d, "junit.xml")).read()).group(1)
    if t(orig) != t(new): die(f"junit tests {t(new)} != {t(orig)}")
    sarif = json.load(open(os.path.join(new, "report.sarif")))
    if sarif.get("version") != "2.1.0": die(f"SARIF version {sarif.get('version')}")
    print(f"json, junit ({t(new)} tests), sarif 2.1.0, md, html rebuilt")

def merged(args):
    """merged FULL MERGED S1 S2: the shards are disjoint and merge into the full run."""
    full, m, s1, s2 = args
    a, b = ids(s1), ids(s2)
    if not a or not b or set(a) & set(b): die(f"shards {len(a)} + {len(b)} scenarios, overlapping or empty")
    if ids(m) != ids(full): die(f"merged report holds {len(ids(m))} scenarios, the full run {len(ids(full))}")
    st = lambda d: {r["scenario"]: r["status"] for r in json.load(open(os.path.join(d, "report.json")))["runs"][0]["results"]}
    if st(m) != st(full): die("merged statuses differ from the full run's")
    print(f"shards of {len(a)} + {len(b)} merged into {len(ids(m))}, statuses as the full run")

def load(args):
    """load FILE FLOWS LOGINS: every login succeeded, each flow its share, proofs distinct."""
    path, flows, logins = args[0], args[1].split(","), int(args[2])
    d = json.load(open(path))
    if d["logins"] != logins or d["succeeded"] != logins or d["failed"] != 0:
        die(f'logins {d["logins"]}, succeeded {d["succeeded"]}, failed {d["failed"]}; want {logins} all ok')
    got = {f["flow"]: (f["succeeded"], f["failed"]) for f in d["flows"]}
    share = {f: logins // len(flows) + (1 if i < logins % len(flows) else 0) for i, f in enumerate(flows)}
    want = {f: (share[f], 0) for f in flows}
    if got != want: die(f"per-flow (ok, failed) {got} != {want}")
    if d["distinctSecrets"] != d["perLoginProofs"]:
        die(f'distinct proofs {d["distinctSecrets"]} of {d["perLoginProofs"]}')
    if not d["trafficLogComplete"]: die("traffic log incomplete")
    print(f'{logins} logins, ' + ", ".join(f"{f} {got[f][0]}" for f in flows)
          + f', distinct proofs {d["distinctSecrets"]}/{d["perLoginProofs"]}')

def bench(args):
    d = json.load(open(args[0]))
    for k in ["figures", "logins", "serveStartup", "targets", "evpSignsPerSecond"]:
        if k not in d: die(f"no {k} section")
    if len(d["figures"]) < 3 or any(not f["perSecond"] > 0 for f in d["figures"]): die(f'signing figures {d["figures"]}')
    flows = {l["flow"] for l in d["logins"]}
    if flows != {"web-sso", "ecp", "cas-rest"}: die(f"login flows {sorted(flows)}")
    bad = [l for l in d["logins"] if l["failed"] or not l["logins"]]
    if bad: die(f"login measurements with failures or no logins: {bad}")
    if d["serveStartup"]["failures"] or not d["serveStartup"]["runsMilliseconds"]: die(f'serve start-up {d["serveStartup"]}')
    ids_ = {t["id"] for t in d["targets"]}
    if not {"signing-ratio", "serve-startup"} <= ids_: die(f"targets {sorted(ids_)}")
    print(f'{len(d["figures"])} signing figures, {len(d["logins"])} login measurements (0 failed), serve started, {len(d["targets"])} targets judged')

class Serve:
    def __init__(self, binary, *extra):
        self.p = subprocess.Popen([binary, "serve", "--port", "0", *extra], stdout=subprocess.PIPE,
                                  stderr=open(os.environ["SMOKE_SERVE_LOG"], "a"), text=True)
        ready, _, _ = select.select([self.p.stdout], [], [], 120)  # hang detector only
        if not ready: self.p.kill(); die("no ready line within 120 s")
        line = self.p.stdout.readline()
        if not line: die(f"serve exited {self.p.wait()} before its ready line")
        self.r = json.loads(line)
        if self.r.get("event") != "ready": die(f"first line is not ready: {line[:200]}")
    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try: return self.p.wait(timeout=60)
        except subprocess.TimeoutExpired: self.p.kill(); die("serve did not stop on SIGTERM")

def http(method, url, body=None, headers=None):
    h = dict(headers or {})
    data = None if body is None else json.dumps(body).encode()
    # The control API takes state changes as JSON only (docs/security.md).
    if data is not None or method != "GET": h["Content-Type"] = "application/json"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=h), timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e: return e.code, e.read()

def serve(args):
    """serve BIN HAR: the control API moves knobs, profile, clock; traffic logged; SIGTERM exits 0."""
    binary, har = args
    s = Serve(binary, "--profile", "shibboleth", "--har-out", har)
    c, u = s.r["control"], s.r["users"][0]
    state = lambda: json.loads(http("GET", c["state"])[1])
    st = state()
    if st["knobs"] != [] or st["clockOffset"] != 0 or st["profile"] != "shibboleth": die(f"initial state {st['knobs']} {st['clockOffset']} {st['profile']}")
    if http("PUT", c["knobs"], {"knobs": ["wrong-audience"]})[0] != 200 or state()["knobs"] != ["wrong-audience"]: die("PUT /knobs not applied")
    if http("POST", c["clock"], {"advance": 3600})[0] != 200 or state()["clockOffset"] != 3600: die("POST /clock not applied")
    if http("PUT", c["profile"], {"profile": "shibboleth-basic"})[0] != 200 or state()["profile"] != "shibboleth-basic": die("PUT /profile not applied")
    if http("DELETE", c["knobs"])[0] != 200 or state()["knobs"] != []: die("DELETE /knobs not applied")
    if http("POST", c["reset"])[0] != 200 or state()["trafficEntries"] > 1: die("POST /reset kept the traffic")
    if http("GET", s.r["auth"]["basic"])[0] != 401: die("/basic/ without credentials not 401")
    cred = base64.b64encode(f'{u["username"]}:{u["password"]}'.encode()).decode()
    code, body = http("GET", s.r["auth"]["basic"], headers={"Authorization": "Basic " + cred})
    m = re.search(rb'id="secret">([^<]+)<', body)
    if code != 200 or not m: die(f"/basic/ with alice's credentials: {code}")
    code, body = http("GET", c["traffic"])
    entries = json.loads(body)["log"]["entries"]
    basic = [e for e in entries if e["request"]["url"].endswith("/basic/")]
    if [e["response"]["status"] for e in basic] != [401, 200]: die(f"traffic.har /basic/ statuses {[e['response']['status'] for e in basic]}")
    rc = s.stop()
    if rc != 0: die(f"serve exited {rc} on SIGTERM")
    written = json.load(open(har))["log"]["entries"]
    if not any(e["request"]["url"].endswith("/basic/") and e["response"]["status"] == 200 for e in written):
        die("--har-out file lacks the /basic/ login")
    print(f"ready line, GET state, PUT knobs/profile, POST clock +3600, DELETE knobs, reset, Basic login (secret {m.group(1)[:5].decode()}…), traffic.har {len(entries)} entries, SIGTERM exit 0, --har-out {len(written)} entries")

# What a real Shibboleth SP 3.4.1 with its stock settings does with the attacks it does not
# refuse (Tests/HarnessTests/AttackShibbolethTests.swift), and so the stock mock SP too.
STOCK_SHIBBOLETH = {"xsw3": "ignored-forgery", "second-assertion": "ignored-forgery",
                    "sha1-downgrade": "policy", "forged-in-response-to": "policy", "nameid-comment": "read-whole"}

def attack(args):
    """attack BIN JSON CATALOG_SIZE: against the hardened mock SP every attack rejected or read
    whole; against the stock one (Shibboleth SP 3's defaults) what a real Shibboleth SP does."""
    binary, out, size = args[0], args[1], int(args[2])
    hardened = attack_run(binary, out, size, "hardened")
    bad = [f'{r["id"]}={r["outcome"]}' for r in hardened if r["outcome"] not in ("rejected", "read-whole")]
    if bad: die("hardened SP did not refuse: " + ", ".join(bad))
    stock = attack_run(binary, out, size, "shibboleth")
    other = {r["id"]: r["outcome"] for r in stock if r["outcome"] != "rejected"}
    if other != STOCK_SHIBBOLETH: die(f"stock SP: {other}, a real Shibboleth SP: {STOCK_SHIBBOLETH}")
    whole = [r["id"] for r in hardened if r["outcome"] == "read-whole"]
    print(f"baseline accepted as alice; {len(hardened)} attacks: hardened SP {len(hardened) - len(whole)} rejected, read-whole {whole}; "
          f"stock SP as a real Shibboleth SP: {len(stock) - len(other)} rejected, {', '.join(f'{k} {v}' for k, v in sorted(other.items()))}")

def attack_run(binary, out, size, personality):
    s = Serve(binary, "--profile", "shibboleth", "--sp-personality", personality)
    sp, idp = s.r["sp"], s.r["idp"]
    a = subprocess.run([binary, "attack-sp", "--acs", sp["acs"], "--sp-entity-id", sp["entity_id"],
                        "--idp-entity-id", idp["entity_id"], "--success-pattern", 'id="nameid"',
                        "--failure-pattern", "Shibboleth Error", "--session-url", sp["session"], "--json-out", out],
                       capture_output=True, text=True, timeout=300)
    rc = s.stop()
    if a.returncode != 0: die(f"attack-sp exited {a.returncode}: {a.stdout[-300:]} {a.stderr[-300:]}")
    if rc != 0: die(f"serve exited {rc} on SIGTERM")
    d = json.load(open(out))
    if d["baseline"]["status"] != 200 or "alice@example.org" not in d["baseline"]["detail"]: die(f'baseline {d["baseline"]}')
    res = d["results"]
    if len(res) != size: die(f"{len(res)} results, the catalog lists {size}")
    return res

def record(args):
    """record BIN WORK: the reference client logs in to the mocks through `record`; SIGINT writes
    the HAR (mode 0600) and the scenario; the replay passes with the reference client."""
    binary, work = args
    s = Serve(binary)
    out, har = os.path.join(work, "recorded-live", "smoke-record.yaml"), os.path.join(work, "smoke-record.har")
    p = subprocess.Popen([binary, "record", "--listen", "127.0.0.1:0", "--allow-host", "127.0.0.1", "--others", "refuse",
                          "--ca-dir", os.path.join(work, "recording-ca"), "--out", out, "--har", har],
                         stdout=subprocess.PIPE, stderr=open(os.environ["SMOKE_SERVE_LOG"], "a"), text=True)
    ready, _, _ = select.select([p.stdout], [], [], 120)  # hang detector only
    if not ready: p.kill(); s.stop(); die("record: no ready line within 120 s")
    r = json.loads(p.stdout.readline())
    u = s.r["users"][0]
    env = dict(os.environ, http_proxy=r["proxy"], https_proxy=r["proxy"], no_proxy="", SAMLH_FLOW="web-sso",
               SAMLH_START_URL=s.r["sp"]["secure"], SAMLH_USERNAME=u["username"], SAMLH_PASSWORD=u["password"],
               SAMLH_RESULT_FILE=os.path.join(work, "record-client.json"))
    client = subprocess.run([os.path.join(os.path.dirname(binary), "samlh-reference-client")], env=env,
                            capture_output=True, text=True, timeout=120)
    p.send_signal(signal.SIGINT)
    try: rest = p.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired: p.kill(); die("record did not stop on SIGINT")
    s.stop()
    if client.returncode != 0: die(f"reference client through the proxy exited {client.returncode}: {client.stderr[-300:]}")
    if p.returncode != 0: die(f"record exited {p.returncode} on SIGINT: {rest[-300:]}")
    entries = json.load(open(har))["log"]["entries"]
    if os.stat(har).st_mode & 0o777 != 0o600 or os.stat(out).st_mode & 0o777 != 0o600: die("HAR or scenario not mode 0600")
    if not any("SAMLResponse=" in (e["request"].get("postData") or {}).get("text", "") for e in entries): die("no SAMLResponse recorded")
    rd = os.path.join(work, "record-replay")
    run = subprocess.run([binary, "run", "--builtin", "reference", "--scenarios", out, "--report-dir", rd],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0 or "1 pass, 0 fail" not in run.stdout: die(f"replay of the recording: {run.stdout[-300:]}")
    print(f"reference client through the proxy: {len(entries)} exchanges recorded, HAR and scenario mode 0600, the replay passes")

def pick(args):
    """pick BIN SELECTED FLOWS PER: up to PER scenarios of each (flow, outcome), id order."""
    binary, selected, flows, per = args[0], args[1], args[2], int(args[3])
    rows = [json.loads(l) for l in subprocess.run([binary, "list", "--json"], capture_output=True, text=True, check=True).stdout.splitlines()]
    picked = {}
    for r in sorted(rows, key=lambda r: r["id"]):
        # The Kerberos scenarios need a realm (SAMLH_KERBEROS) and a client that speaks Kerberos,
        # which the reference client does not: KerberosRealmTests and the real-client suite run them.
        if "kerberos" in (r.get("tags") or []): continue
        picked.setdefault((r["flow"], r["outcome"]), [])
        if len(picked[(r["flow"], r["outcome"])]) < per: picked[(r["flow"], r["outcome"])].append(r["id"])
    open(selected, "w").write("".join(i + "\n" for k in sorted(picked) for i in picked[k]))
    open(flows, "w").write(" ".join(sorted({r["flow"] for r in rows})) + "\n")
    print(sum(map(len, picked.values())))

try: globals()[sys.argv[1].replace("-", "_")](sys.argv[2:])
except SystemExit: raise
except Exception as e: die(f"{type(e).__name__}: {e}"[:300])
PY
export SMOKE_SERVE_LOG="$work/serve.log"

# selfcheck: a signed Response verified by SAMLCore and xmlsec1, a login through the mocks.
h selfcheck selfcheck --report-dir "$work/selfcheck"
if [[ $rc -eq 0 ]] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["passed"] and d["steps"] and all(s["passed"] for s in d["steps"]) else 1)' "$work/selfcheck/selfcheck.json" \
   && [[ -s "$work/selfcheck/response.b64" ]]; then
  ok selfcheck "$(tail -n 1 "$work/selfcheck.out" | cut -d' ' -f1-4 | sed 's/ passed/ steps passed/')"
else fail selfcheck "exit $rc: $(tailof selfcheck)"; fi

# decode: the harness's own Response, clean; then with `+` turned to spaces, diagnosed.
h decode decode @"$work/selfcheck/response.b64" --xml-only
if [[ $rc -eq 0 ]] && grep -q '<saml:Issuer>https://idp.example.org/idp/shibboleth</saml:Issuer>' "$work/decode.out" \
   && python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$work/decode.out" 2>/dev/null; then
  tr '+' ' ' <"$work/selfcheck/response.b64" >"$work/damaged.b64"
  h decode-damaged decode @"$work/damaged.b64" --binding post --expected @"$work/selfcheck/response.b64"
  if [[ $rc -eq 0 ]] && grep -q 'encoding.plus-as-space' "$work/decode-damaged.out" && grep -q 'encoding.recoverable' "$work/decode-damaged.out"; then
    ok decode "pretty XML of the selfcheck Response; '+'→space diagnosed encoding.plus-as-space, recoverable"
  else fail decode "damaged copy: exit $rc, no encoding.plus-as-space/recoverable: $(tailof decode-damaged)"; fi
else fail decode "exit $rc or not the Response's XML: $(tailof decode)"; fi

# verify-response: valid as issued; refused for another SP (audience) and when tampered.
vr=(--idp-cert MockIdP/keys/idp-cert.pem --idp-entity-id https://idp.example.org/idp/shibboleth
    --acs-url https://sp.example.org/Shibboleth.sso/SAML2/POST --request-id _selfcheck-request)
h verify verify-response "$work/selfcheck/response.b64" "${vr[@]}" --sp-entity-id https://sp.example.org/shibboleth; v1=$rc
h verify-aud verify-response "$work/selfcheck/response.b64" "${vr[@]}" --sp-entity-id https://other.example.org/sp; v2=$rc
h verify-tamper verify-response "$work/selfcheck/response-tampered.xml" "${vr[@]}" --sp-entity-id https://sp.example.org/shibboleth; v3=$rc
if [[ $v1 -eq 0 ]] && grep -q '^valid: nameid=alice@example.org ' "$work/verify.out" \
   && [[ $v2 -eq 1 ]] && grep -q '^invalid: audience\.' "$work/verify-aud.out" \
   && [[ $v3 -eq 1 ]] && grep -q '^invalid: signature\.invalid' "$work/verify-tamper.out"; then
  ok verify-response "valid nameid=alice@example.org; other SP → $(cut -d: -f2 "$work/verify-aud.out" | tr -d ' '); tampered → signature.invalid"
else fail verify-response "exits $v1/$v2/$v3 (want 0/1/1): $(tailof verify) | $(tailof verify-aud) | $(tailof verify-tamper)"; fi

# keys: an EC key and certificate that belong together.
h keys keys --algorithm ec-p256 --cn smoke-idp --name smoke --out-dir "$work/keys"
if [[ $rc -eq 0 ]] && openssl x509 -in "$work/keys/smoke-cert.pem" -noout -subject 2>/dev/null | grep -q 'CN *= *smoke-idp' \
   && [[ "$(openssl x509 -in "$work/keys/smoke-cert.pem" -noout -pubkey | openssl pkey -pubin -outform DER | sha256sum)" \
      == "$(openssl pkey -in "$work/keys/smoke-key.pem" -pubout -outform DER | sha256sum)" ]]; then
  ok keys "ec-p256 key and certificate CN=smoke-idp, public keys match"
else fail keys "exit $rc: $(tailof keys)"; fi

# list, knobs: the catalog validates; the knob catalog is printed.
h list list --count; n_catalog="$(tr -d '[:space:]' <"$work/list.out")"
h knobs knobs; n_knobs=$(awk -F'\t' 'NF == 4' "$work/knobs.out" | wc -l)
if [[ "$n_catalog" =~ ^[0-9]+$ && $n_catalog -gt 0 && $rc -eq 0 && $n_knobs -gt 0 ]]; then
  ok list "$n_catalog scenarios, every file valid; knobs lists $n_knobs"
else fail list "list --count '$n_catalog', knobs exit $rc with $n_knobs lines: $(tailof list)"; fi

# run: a slice of every flow (3 scenarios per flow and outcome) with the reference client.
if n_sel="$(python3 "$work/check.py" pick "$bin" "$work/selected" "$work/flows" 3 2>&1)"; then
  sel=(); while read -r id; do sel+=(--filter "$id"); done <"$work/selected"
  h run run --builtin reference --jobs 2 --time-scale 0.1 --report-dir "$work/run" "${sel[@]}"
  if [[ $rc -eq 0 ]]; then judge run run "$work/run" "$work/selected" "$work/flows"
  else fail run "exit $rc over $n_sel scenarios: $(grep -v '^PASS' "$work/run.out" | head -n 3 | tr '\n' ' ')"; fi
else fail run "cannot select scenarios: $n_sel"; fi

# report build / merge / diff over the slice, its two shards, and a broken client's run.
h report report build "$work/run" --out "$work/rebuilt"
if [[ $rc -eq 0 ]]; then judge report rebuilt "$work/run" "$work/rebuilt"; else fail report "build exit $rc: $(tailof report)"; fi
h shard1 run --builtin reference --jobs 2 --time-scale 0.1 --report-dir "$work/shard1" --shard 1/2 "${sel[@]}"; s1=$rc
h shard2 run --builtin reference --jobs 2 --time-scale 0.1 --report-dir "$work/shard2" --shard 2/2 "${sel[@]}"; s2=$rc
h merge report merge "$work/shard1" "$work/shard2" --out "$work/merged"
if [[ $s1 -eq 0 && $s2 -eq 0 && $rc -eq 0 ]]; then judge "report-merge" merged "$work/run" "$work/merged" "$work/shard1" "$work/shard2"
else fail report-merge "shards exit $s1/$s2, merge exit $rc: $(tailof merge)"; fi
h diff-same report diff "$work/run" "$work/merged"; d1=$rc
victim="$(python3 -c 'import json,sys; print(next(r["scenario"] for r in map(json.loads, open(sys.argv[1])) if r.get("status") == "pass" and r.get("flow") == "web-sso"))' "$work/run/results.jsonl" 2>/dev/null)"
h broken run --client true --filter "$victim" --report-dir "$work/broken"
h diff-broken report diff "$work/run" "$work/broken"; d2=$rc
if [[ $d1 -eq 0 && $d2 -eq 1 ]] && grep -q "^result: REGRESSION" "$work/diff-broken.out" \
   && grep -q "^  $victim: pass → fail" "$work/diff-broken.out" && grep -q "^regressions: 0" "$work/diff-same.out"; then
  ok report-diff "full vs merged: 0 regressions, exit 0; vs a client that claims success ('true') on $victim: regression, exit 1"
else fail report-diff "exits $d1/$d2 (want 0/1) for victim '$victim': $(tailof diff-broken)"; fi

# load: every flow, the README's defaults (1000 logins, 1000 in flight), then two flows.
# LOAD_FLOWS=a,b runs the first with --flows a,b (default: load's own default, all four).
load_flows="${LOAD_FLOWS:-web-sso,ecp,cas-rest,http-basic}"
h load load ${LOAD_FLOWS:+--flows "$LOAD_FLOWS"} --json-out "$work/load.json"; l1=$rc
h load2 load --flows ecp,cas-rest --logins 200 --concurrency 50 --mocks process --json-out "$work/load2.json"; l2=$rc
# loadcheck JSON FLOWS LOGINS EXIT LABEL: the per-flow figures, whatever the exit status.
loadcheck() {
  local m r; m="$(python3 "$work/check.py" load "$1" "$2" "$3" 2>&1)"; r=$?
  if [[ $4 -ne 0 || $r -ne 0 ]]; then echo "$5 exit $4: $m"; return 1; fi
  echo "$m"
}
if m1="$(loadcheck "$work/load.json" "$load_flows" 1000 $l1 "${LOAD_FLOWS:-defaults}")" \
   && m2="$(loadcheck "$work/load2.json" ecp,cas-rest 200 $l2 "--flows ecp,cas-rest")"; then ok load "$m1; $m2"
else fail load "${m2:-$m1}"; fi

# bench: every section, tiny durations.
h bench bench --seconds 0.2 --login-seconds 0.3 --connections 1 --startup-runs 1 --no-openssl-speed --json-out "$work/bench.json"
if [[ $rc -eq 0 ]]; then judge bench bench "$work/bench.json"; else fail bench "exit $rc: $(tailof bench)"; fi

# serve + the control API.
if line="$(timeout -k 5 "$hang" python3 "$work/check.py" serve "$bin" "$work/serve.har" 2>&1)"; then ok serve "$line"
else fail serve "$line $(tail -n 2 "$work/serve.log" | tr '\n' ' ')"; fi

# import-har + replay: the Chrome HAR fixture and the SAML-tracer export, and recordings of a
# real SimpleSAMLphp + Shibboleth SP (a Firefox-layout login, a failed login, requests-ecp's ECP
# login), each imported and replayed by the reference client.
fx=Tests/HarnessTests/Fixtures/recorded
h import import-har "$fx/shibboleth-login.chrome.har" --out "$work/recorded/smoke-har.yaml" --redact; i1=$rc
h import2 import-har "$fx/shibboleth-login.saml-tracer.json" --out "$work/recorded/smoke-tracer.yaml"; i2=$rc
h import3 import-har "$fx/real/ssp-shibboleth-login.firefox.har" --out "$work/recorded/smoke-real.yaml" --redact; i3=$rc
h import4 import-har "$fx/real/ssp-shibboleth-wrong-password.saml-tracer.json" --out "$work/recorded/smoke-real-failed.yaml" --redact; i4=$rc
h import5 import-har "$fx/real/ssp-shibboleth-ecp.requests-ecp.har" --out "$work/recorded/smoke-real-ecp.yaml" --redact; i5=$rc
if [[ $i1 -eq 0 && $i2 -eq 0 && $i3 -eq 0 && $i4 -eq 0 && $i5 -eq 0 && -s "$work/recorded/smoke-har.yaml" && -s "$work/recorded/smoke-tracer.yaml" ]] \
   && grep -q '^redacted [1-9][0-9]* item' "$work/import.out"; then
  h replay run --builtin reference --time-scale 0.1 --scenarios "$work/recorded" --report-dir "$work/replay"
  if [[ $rc -eq 0 ]] && [[ "$(python3 -c 'import json,sys; print(" ".join(sorted(r["scenario"]+"="+r["status"] for r in map(json.loads, open(sys.argv[1])) if "status" in r)))' "$work/replay/results.jsonl")" \
        == "smoke-har=pass smoke-real-ecp=pass smoke-real-failed=pass smoke-real=pass smoke-tracer=pass" ]]; then
    ok import-har "HAR (redacted: $(grep -o '^redacted [0-9]*' "$work/import.out" | cut -d' ' -f2) items), SAML-tracer and three real recordings (login, failed login, ECP) imported; every replay passes with the reference client"
  else fail import-har "replay exit $rc: $(tailof replay)"; fi
else fail import-har "imports exit $i1/$i2/$i3/$i4/$i5: $(tailof import) $(tailof import2) $(tailof import3)"; fi

# record: a login through the recording proxy becomes a HAR and a scenario that replays.
if line="$(timeout -k 5 "$hang" python3 "$work/check.py" record "$bin" "$work" 2>&1)"; then ok record "$line"
else fail record "$line $(tail -n 2 "$work/serve.log" | tr '\n' ' ')"; fi

# attack-sp against the mock SP: hardened, every attack rejected (nameid-comment read whole), exit 0;
# stock Shibboleth, what a real Shibboleth SP 3.4.1 does (xsw3 and second-assertion ignored, SHA-1 and
# a forged InResponseTo accepted as its documented policies).
h attack-list attack-sp --list; n_attacks=$(grep -c . "$work/attack-list.out")
if line="$(timeout -k 5 "$hang" python3 "$work/check.py" attack "$bin" "$work/attack.json" "$n_attacks" 2>&1)"; then ok attack-sp "$line"
else fail attack-sp "$line"; fi

echo "$passed passed, $failed failed ($((SECONDS - suite_start)) s after the build${SAMLH_SMOKE_KEEP:+; outputs in $work})"
[[ $failed -eq 0 ]]
