#!/usr/bin/env bash
# Re-makes the recorded-chain fixtures of Tests/HarnessTests/Fixtures/recorded/:
#
#   shibboleth-login.chrome.har         a Chrome-style HAR of a real Shibboleth-style login
#   shibboleth-login.saml-tracer.json   the same login as a SAML-tracer export (no bodies)
#
#   scripts/make-har-fixture.sh          (after `swift build`; needs scripts/setup-interop.sh)
#
# How: `samlharness serve --profile shibboleth --har-out RAW` runs the mocks; the real Python
# mechanize client (Tests/Interop/websso_mechanize.py) logs in as alice through them; on
# SIGINT serve writes the traffic as HAR. The HAR is then made to look like a browser's:
# the loopback origins become https://sp.example.org and https://idp.example.edu everywhere
# (URLs, headers, bodies, and inside the SAMLRequest/SAMLResponse, decoded and re-encoded —
# the recorded signature no longer verifies after that, which the import's re-signing
# handles), Chrome's fields are added (pages, _initiator, _resourceType, _priority, HTTP/2
# lowercase headers and pseudo-headers, a base64 body, redirects without bodies, a logo,
# a stylesheet, a favicon and an analytics beacon that the import must leave out, a
# `Domain=.example.org; Secure; SameSite=None` session cookie), and the harness's own
# fields (_mock, _run, _sequence, _annotations) are dropped.
# Environment: SAMLH_BIN (default .build/debug/samlharness), SAMLH_INTEROP_VENV (.venv-interop).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${SAMLH_BIN:-$repo/.build/debug/samlharness}"
venv="${SAMLH_INTEROP_VENV:-$repo/.venv-interop}"
out="$repo/Tests/HarnessTests/Fixtures/recorded"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

[ -x "$bin" ] || { echo "build first: swift build ($bin missing)" >&2; exit 2; }
[ -x "$venv/bin/python" ] || { echo "run scripts/setup-interop.sh first ($venv missing)" >&2; exit 2; }

"$bin" serve --profile shibboleth --mockidp-dir "$repo/MockIdP" --har-out "$work/raw.har" >"$work/ready.json" 2>"$work/serve.log" &
serve=$!
for _ in $(seq 1 100); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
[ -s "$work/ready.json" ] || { kill "$serve"; cat "$work/serve.log" >&2; exit 1; }

read -r start password < <(python3 - "$work/ready.json" <<'EOF'
import json, sys
ready = json.load(open(sys.argv[1]))
alice = next(u for u in ready["users"] if u["username"] == "alice")
print(ready["sp"]["secure"], alice["password"])
EOF
)
"$venv/bin/python" "$repo/Tests/Interop/websso_mechanize.py" --start "$start" --username alice \
    --password "$password" >"$work/client.json"
kill -INT "$serve"
wait "$serve" || true

mkdir -p "$out"
python3 - "$work/raw.har" "$work/ready.json" "$out" <<'EOF'
import base64, copy, json, sys, urllib.parse, zlib

raw = json.load(open(sys.argv[1]))
ready = json.load(open(sys.argv[2]))
out = sys.argv[3]
SP, IDP = ready["sp"]["base"], ready["idp"]["base"]
NEW = {SP: "https://sp.example.org", IDP: "https://idp.example.edu"}
T0 = "2025-03-14T09:26:53.000Z"

def rw(text):
    for old, new in NEW.items():
        text = text.replace(old, new)
        text = text.replace(urllib.parse.quote(old, safe=""), urllib.parse.quote(new, safe=""))
    return text

def rw_saml_query(url):
    if "?" not in url:
        return rw(url)
    base, query = url.split("?", 1)
    pairs = []
    for part in query.split("&"):
        name, _, value = part.partition("=")
        if name == "SAMLRequest":
            xml = zlib.decompress(base64.b64decode(urllib.parse.unquote(value)), -15).decode()
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            data = c.compress(rw(xml).encode()) + c.flush()
            value = urllib.parse.quote(base64.b64encode(data).decode(), safe="")
        else:
            value = rw(value)
        pairs.append(name + "=" + value)
    return rw(base) + "?" + "&".join(pairs)

def rw_post_value(value):
    return base64.b64encode(rw(base64.b64decode(value).decode()).encode()).decode()

def rw_body(text):
    marker = 'name="SAMLResponse" value="'
    if marker in text:
        head, rest = text.split(marker, 1)
        value, tail = rest.split('"', 1)
        text = head + marker + rw_post_value(value) + '"' + tail
    return rw(text)

def rw_form(text):
    pairs = []
    for part in text.split("&"):
        name, _, value = part.partition("=")
        if name == "SAMLResponse":
            value = urllib.parse.quote(rw_post_value(urllib.parse.unquote(value)), safe="")
        else:
            value = rw(value)
        pairs.append(name + "=" + value)
    return "&".join(pairs)

UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36"

def chrome_headers(method, url, headers, cookie=None, origin=None, referer=None, mime=None):
    parsed = urllib.parse.urlsplit(url)
    result = [{"name": ":authority", "value": parsed.netloc}, {"name": ":method", "value": method},
              {"name": ":path", "value": parsed.path + ("?" + parsed.query if parsed.query else "")},
              {"name": ":scheme", "value": parsed.scheme},
              {"name": "accept", "value": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"},
              {"name": "accept-encoding", "value": "gzip, deflate, br"},
              {"name": "accept-language", "value": "en-US,en;q=0.9"}]
    if mime: result.append({"name": "content-type", "value": mime})
    if cookie: result.append({"name": "cookie", "value": cookie})
    if origin: result.append({"name": "origin", "value": origin})
    if referer: result.append({"name": "referer", "value": referer})
    result += [{"name": "sec-fetch-dest", "value": "document"}, {"name": "sec-fetch-mode", "value": "navigate"},
               {"name": "upgrade-insecure-requests", "value": "1"}, {"name": "user-agent", "value": UA}]
    return result

entries, tracer = [], []
previous_url = None
for index, e in enumerate(raw["log"]["entries"]):
    req, res = e["request"], e["response"]
    url = rw_saml_query(req["url"])
    method = req["method"]
    cookie = next((h["value"] for h in req["headers"] if h["name"].lower() == "cookie"), None)
    post = req.get("postData")
    post_text = rw_form(post["text"]) if post else None
    parsed = urllib.parse.urlsplit(url)
    origin = parsed.scheme + "://" + parsed.netloc
    headers = chrome_headers(method, url, req["headers"], cookie,
                             origin if method == "POST" else None, previous_url,
                             post["mimeType"] if post else None)
    res_headers = []
    for h in res["headers"]:
        name, value = h["name"].lower(), h["value"]
        if name == "location":
            value = rw_saml_query(value)
        elif name == "set-cookie" and value.startswith("_shibsession_"):
            value += "; Domain=.example.org; Secure; SameSite=None"
        else:
            value = rw(value)
        res_headers.append({"name": name, "value": value})
    res_headers += [{"name": "date", "value": "Fri, 14 Mar 2025 09:26:53 GMT"},
                    {"name": "strict-transport-security", "value": "max-age=31536000"},
                    {"name": "server", "value": "Apache"}]
    text = res["content"].get("text")
    content = {"size": len(text.encode()) if text else 0, "mimeType": res["content"]["mimeType"] or "x-unknown"}
    if text and res["status"] == 200:
        body = rw_body(text)
        if "Information Release" in body:
            # Chrome writes some bodies base64-encoded.
            content.update(text=base64.b64encode(body.encode()).decode(), encoding="base64")
        else:
            content["text"] = body
    location = next((h["value"] for h in res_headers if h["name"] == "location"), "")
    har_entry = {
        "_initiator": {"type": "other"} if index == 0 else {"type": "parser", "url": previous_url},
        "_priority": "VeryHigh", "_resourceType": "document", "cache": {}, "connection": str(443000 + index),
        "pageref": "page_1",
        "request": {"method": method, "url": url, "httpVersion": "http/2.0", "headers": headers,
                    "queryString": [{"name": k, "value": v} for k, v in urllib.parse.parse_qsl(parsed.query)],
                    "cookies": [], "headersSize": -1, "bodySize": len(post_text) if post_text else 0},
        "response": {"status": res["status"], "statusText": "", "httpVersion": "http/2.0", "headers": res_headers,
                     "cookies": [], "content": content, "redirectURL": location, "headersSize": -1, "bodySize": -1,
                     "_transferSize": 1200, "_error": None},
        "serverIPAddress": "192.0.2.10" if "sp." in url else "198.51.100.20",
        "startedDateTime": "2025-03-14T09:26:%06.3fZ" % (53 + index * 0.4),
        "time": 40.5,
        "timings": {"blocked": 1.2, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": 35.1,
                    "receive": 4.0, "_blocked_queueing": 0.8},
    }
    if post:
        har_entry["request"]["postData"] = {"mimeType": post["mimeType"], "text": post_text}
    entries.append(har_entry)
    sent = [[k, v] for k, v in urllib.parse.parse_qsl(post_text, keep_blank_values=True)] if post_text else None
    item = {"requestId": str(1000 + index), "method": method, "url": url,
            "requestHeaders": [h for h in headers if not h["name"].startswith(":")],
            "responseStatus": res["status"], "responseStatusText": "HTTP/1.1 %d %s" % (res["status"], res["statusText"]),
            "responseHeaders": res_headers}
    if method == "GET":
        item["get"] = [[k, v] for k, v in urllib.parse.parse_qsl(parsed.query, keep_blank_values=True)]
    if sent is not None:
        item["post"] = sent
    for k, v in (item.get("get") or []):
        if k == "SAMLRequest":
            item["protocol"] = "SAML-P"
            item["saml"] = zlib.decompress(base64.b64decode(v), -15).decode()
    for k, v in (item.get("post") or []):
        if k == "SAMLResponse":
            item["protocol"] = "SAML-P"
            item["saml"] = base64.b64decode(v).decode()
    tracer.append(item)
    if res["status"] == 200:
        previous_url = url
    # What a browser also fetches on the way, which the import must leave out.
    if "Web Login Service" in (text or ""):
        png = base64.b64encode(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                                             "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")).decode()
        for path, kind, mime, body, enc in [("/idp/images/dummylogo.png", "image", "image/png", png, "base64"),
                                            ("/idp/css/main.css", "stylesheet", "text/css", "body{font-family:sans-serif}", None),
                                            ("/favicon.ico", "other", "text/html", "<h1>Not Found</h1>", None)]:
            static = copy.deepcopy(har_entry)
            static["_resourceType"] = kind
            static["request"].update(method="GET", url="https://idp.example.edu" + path, queryString=[])
            static["request"].pop("postData", None)
            static["response"].update(status=404 if path == "/favicon.ico" else 200, redirectURL="",
                                      headers=[{"name": "content-type", "value": mime}],
                                      content={"size": len(body), "mimeType": mime, "text": body, **({"encoding": enc} if enc else {})})
            entries.append(static)
        beacon = copy.deepcopy(entries[-1])
        beacon["_resourceType"] = "xhr"
        beacon["request"].update(method="POST", url="https://analytics.example.net/collect?v=2&tid=G-TEST",
                                 postData={"mimeType": "text/plain", "text": "en=page_view"})
        beacon["response"].update(status=204, headers=[], content={"size": 0, "mimeType": "x-unknown"})
        entries.append(beacon)

har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
               "pages": [{"startedDateTime": T0, "id": "page_1", "title": "https://sp.example.org/secure",
                          "pageTimings": {"onContentLoad": 210.4, "onLoad": 260.1}}],
               "entries": entries}}
json.dump(har, open(out + "/shibboleth-login.chrome.har", "w"), indent=2, ensure_ascii=False)
json.dump({"requests": tracer, "timestamp": "2025-03-14T09:27:10.000Z"},
          open(out + "/shibboleth-login.saml-tracer.json", "w"), indent=2, ensure_ascii=False)
print("wrote", out + "/shibboleth-login.chrome.har", "and", out + "/shibboleth-login.saml-tracer.json")
EOF
