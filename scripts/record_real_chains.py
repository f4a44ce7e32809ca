#!/usr/bin/env python3
"""The Python half of scripts/record-real-chains.sh: records logins through real products and
rewrites each recording in the layouts the tools people attach to bug reports write.

    record_real_chains.py browser --start URL --username U --password P --wrong-password W --out DIR [--prefix NAME]
        Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright; no browser download)
        logs in twice from the SP's protected page: once with the right password (lands on the
        page), once with a wrong one (SimpleSAMLphp's form comes back with its error). Each run is
        recorded by Playwright (record_har_path, record_har_content='embed') and written as
        NAME-login.playwright.har / NAME-wrong-password.playwright.har, then converted (below).
    record_real_chains.py convert FILE.playwright.har
        FILE.chrome.har, FILE.firefox.har, FILE.saml-tracer.json from a Playwright HAR.
    record_real_chains.py ecp --start URL --idp-ecp URL --username U --password P --out FILE.har
        The SAML ECP profile (PAOS) with http.client, written as HAR by a small writer of its own.
    record_real_chains.py ecp-client --client requests-ecp|pysaml2 --python VENV_PYTHON --start URL --idp-ecp URL
                          --idp-entity-id URL --username U --password P [--php-log FILE] --out FILE.har
        A REAL ECP client library, unmodified, through its run-contract wrapper in Tests/RealClients
        (requests_ecp_client.py, pysaml2_ecp.py; SAMLH_* environment as docs/running-clients.md says),
        with http_proxy/HTTP_PROXY set to the recording proxy of scripts/recording_proxy.py and
        no_proxy/NO_PROXY empty. Every exchange (each redirect hop, pysaml2's metadata fetch by
        urllib, requests'/urllib3's requests) is written as HAR 1.2, creator recording_proxy.py with
        the client and its versions in `comment` and in `browser`. Checks: the requests php -S logged
        for the IdP are the proxy's IdP requests, and each body re-encodes to the bytes that crossed
        the proxy (sha256). Prints a JSON report (outcome from the result file, entries); exit 0
        when the client succeeded and the checks passed. The HAR is written either way.
    record_real_chains.py summary DIR
        Prints each recording's entries (method, status, URL) and the login form's action.

What each conversion changes (the traffic itself — URLs, statuses, bodies, cookies — is kept):

Chrome DevTools layout (`…chrome.har`; DevTools → Network → Export HAR, Chrome 120+):
  - creator {name: WebInspector, version: 537.36}, no `browser`; entries' keys in Chrome's order;
  - `pages`: one per committed document (page_1, page_2, …), titled by the document's <title>,
    `pageTimings` (onContentLoad, onLoad) from the entries' own times; Playwright's single page
    with its `page@…` id is replaced;
  - per entry `_initiator` ({type: other} for a navigation the user started or a redirect of it,
    {type: parser, url, lineNumber} for a subresource — the line of the page that names it —,
    {type: script, stack} for the auto-posting form SimpleSAMLphp submits by JavaScript),
    `_priority` (VeryHigh document/stylesheet, High script/font, Low image, as Chrome's defaults),
    `_resourceType` (Playwright's), `_transferSize`/`_error` in the response, `connection`,
    `_connectionId`; Playwright's `_frameref`, `_monotonicTime`, `_serverPort`, `_securityDetails`
    dropped;
  - `queryString` and `postData.params` as Chrome writes them: values NOT percent-decoded;
  - a redirect's content is {size: 0, mimeType} without `text` (Chrome keeps no redirect bodies);
  - timings with Chrome's `blocked`, `_blocked_queueing` and `-1` for what did not happen.
Firefox layout (`…firefox.har`; Network → Save All As HAR, Firefox 128 ESR):
  - creator and browser {name: Firefox, version: 128.0}; pages `page_N` as above;
  - keys in Firefox's order (request: bodySize, method, url, httpVersion, headers, cookies,
    queryString, headersSize, postData), `cache: {}`, `_securityState: insecure`,
    `connection` (the server port, as Firefox writes it), `serverIPAddress`;
  - `queryString` and `postData.params` values percent-decoded (Firefox decodes them);
  - the request headers a Firefox sends instead of Chromium's: its User-Agent and document
    Accept, no `sec-ch-ua*` client hints (Firefox sends none); all other headers as sent;
  - redirects' content {mimeType, size: 0, text: ""}; no `_transferSize`, `_resourceType`.
SAML-tracer export (`…saml-tracer.json`; SAML-tracer 1.x "Export", no filter = profile 1):
  - {requests: [...], timestamp}; each request is SAML-tracer's Request object as JSON.stringify
    writes it (src/SAMLTrace.js, SAMLTraceIO.js): method, url, requestId (the browser's webRequest
    id: a redirect keeps its request's id), requestHeaders [{name, value}] (the headers
    chrome.webRequest reports: without Host, Connection, Content-Length, Cache-Control, which it
    never shows), get (GET only, [[name, value]] split and decoded as SAMLTrace.loadGET does:
    only the first '+' of each part becomes a space), postData ({name: [values]}) and post
    ([[name, value]]) for form posts, protocol "SAML-P" and saml (the decoded message: inflated for
    Redirect, base64-decoded for POST) when a SAMLRequest/SAMLResponse is there, then
    responseStatus, responseStatusText ("HTTP/1.1 302 Found"), responseHeaders. No bodies (the
    export has none).
"""
import argparse
import base64
import copy
import datetime
import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
import time
import zlib
from urllib.parse import parse_qsl, unquote, urljoin, urlsplit

FIREFOX_VERSION = "128.0"
FIREFOX_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
FIREFOX_DOC_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


# ---------------------------------------------------------------------------------------------
# Recording with Playwright


def record_browser(a):
    from playwright.sync_api import sync_playwright

    os.makedirs(a.out, exist_ok=True)
    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=a.chromium, headless=True, args=["--no-sandbox"])
        for kind, password in (("login", a.password), ("wrong-password", a.wrong_password)):
            har = os.path.join(a.out, "%s-%s.playwright.har" % (a.prefix, kind))
            context = browser.new_context(record_har_path=har, record_har_content="embed")
            page = context.new_page()
            page.goto(a.start)
            page.wait_for_selector("#password")
            form_action = page.get_attribute("form[name=f]", "action")
            login_page = page.url
            page.fill("#username", a.username)
            page.fill("#password", password)
            if kind == "login":
                with page.expect_navigation(url=lambda u: u.startswith(a.start.split("?")[0])):
                    page.click("#submit_button")
                page.wait_for_load_state("load")
                body = page.inner_text("body")
                if a.username not in body:
                    raise SystemExit("login: the protected page does not show %s:\n%s" % (a.username, body))
            else:
                with page.expect_navigation():
                    page.click("#submit_button")
                page.wait_for_load_state("load")
                if not page.query_selector("#password"):
                    raise SystemExit("wrong-password: the login form did not come back: %s" % page.url)
                body = page.inner_text("body")
            results[kind] = {"har": har, "final_url": page.url, "form_action": form_action,
                             "login_page": login_page, "urljoin": urljoin(login_page, form_action or ""),
                             "body": body[:400]}
            context.close()  # writes the HAR
        browser.close()
    for r in results.values():
        convert(r["har"])
    json.dump(results, sys.stdout, indent=1)
    sys.stdout.write("\n")


# ---------------------------------------------------------------------------------------------
# Conversions


def header(headers, name):
    for h in headers:
        if h["name"].lower() == name.lower():
            return h["value"]
    return None


def raw_params(text):
    """Name/value pairs as Chrome writes them: split on & and the first =, nothing decoded."""
    pairs = []
    for part in text.split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        pairs.append({"name": name, "value": value})
    return pairs


def decoded_params(text):
    return [{"name": n, "value": v} for n, v in parse_qsl(text, keep_blank_values=True)]


def query_of(url):
    return urlsplit(url).query


def title_of(html):
    m = re.search(r"<title[^>]*>(.*?)</title>", html or "", re.S | re.I)
    return re.sub(r"\s+", " ", m.group(1)).strip() if m else ""


def parse_time(s):
    return datetime.datetime.strptime(s.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z")


def is_navigation(entry):
    return entry.get("_resourceType") == "document"


def assign_pages(entries):
    """Chrome/Firefox pages: one per committed document. A navigation's redirects and the
    document's subresources belong to the page of the document the navigation committed."""
    pages, refs = [], []
    current = None
    pending = []  # a navigation's redirects, until its document commits
    for i, e in enumerate(entries):
        if is_navigation(e):
            pending.append(i)
            if 300 <= e["response"]["status"] < 400:
                continue
            first = entries[pending[0]]
            current = {"startedDateTime": first["startedDateTime"], "id": "page_%d" % (len(pages) + 1),
                       "title": title_of(e["response"]["content"].get("text")) or e["request"]["url"],
                       "_start": parse_time(first["startedDateTime"]), "_end": None, "_doc": i}
            pages.append(current)
            for j in pending:
                refs.append((j, current["id"]))
            pending = []
        else:
            refs.append((i, current["id"] if current else "page_1"))
        if current is not None:
            end = parse_time(e["startedDateTime"]) + datetime.timedelta(milliseconds=max(e.get("time", 0), 0))
            if current["_end"] is None or end > current["_end"]:
                current["_end"] = end
    for j in pending:
        refs.append((j, pages[-1]["id"] if pages else "page_1"))
    by_index = dict(refs)
    for page in pages:
        total = (page["_end"] - page["_start"]).total_seconds() * 1000 if page["_end"] else 0
        doc = entries[page["_doc"]]
        doc_end = (parse_time(doc["startedDateTime"]) - page["_start"]).total_seconds() * 1000 + doc.get("time", 0)
        page["pageTimings"] = {"onContentLoad": round(max(doc_end, 0), 3), "onLoad": round(max(total, doc_end, 0), 3)}
    return pages, by_index


def initiator_of(entries, i, doc_index):
    e = entries[i]
    if is_navigation(e):
        # The auto-posting form of SimpleSAMLphp (post.js submits it) is a script-started navigation.
        prev_doc = doc_index.get(i)
        if e["request"]["method"] == "POST" and prev_doc is not None:
            html = entries[prev_doc]["response"]["content"].get("text") or ""
            if "SAMLResponse" in html or "SAMLRequest" in html:
                script = next((entries[k]["request"]["url"] for k in range(prev_doc + 1, i)
                               if entries[k].get("_resourceType") == "script"), entries[prev_doc]["request"]["url"])
                return {"type": "script", "stack": {"callFrames": [
                    {"functionName": "", "scriptId": "%d" % (10 + i), "url": script, "lineNumber": 0, "columnNumber": 0}]}}
        return {"type": "other"}
    doc = doc_index.get(i)
    if doc is None:
        return {"type": "other"}
    html = entries[doc]["response"]["content"].get("text") or ""
    path = urlsplit(e["request"]["url"]).path
    for n, line in enumerate(html.splitlines()):
        if path in line:
            return {"type": "parser", "url": entries[doc]["request"]["url"], "lineNumber": n}
    return {"type": "parser", "url": entries[doc]["request"]["url"]}


def last_documents(entries):
    """For each entry, the index of the last committed (2xx) document before it."""
    out, last = {}, None
    for i, e in enumerate(entries):
        out[i] = last
        if is_navigation(e) and e["response"]["status"] < 300 and e["response"]["content"].get("text"):
            last = i
    return out


PRIORITY = {"document": "VeryHigh", "stylesheet": "VeryHigh", "script": "High", "font": "High",
            "image": "Low", "fetch": "High", "xhr": "High"}


def content_for(entry, layout):
    c = entry["response"]["content"]
    status = entry["response"]["status"]
    mime = c.get("mimeType") or "x-unknown"
    if 300 <= status < 400:
        return {"size": 0, "mimeType": mime} if layout == "chrome" else {"mimeType": mime, "size": 0, "text": ""}
    text = c.get("text")
    size = c.get("size", -1)
    if size is None or size < 0:
        size = len(base64.b64decode(text)) if (text and c.get("encoding") == "base64") else len((text or "").encode())
    out = {"size": size, "mimeType": mime} if layout == "chrome" else {"mimeType": mime, "size": size}
    if layout == "chrome":
        out["compression"] = c.get("compression", 0)
    if text is not None:
        out["text"] = text
    if c.get("encoding"):
        out["encoding"] = c["encoding"]
    return out


def chrome_entry(e, i, page_ref, initiator):
    r, s = e["request"], e["response"]
    request = {"method": r["method"], "url": r["url"], "httpVersion": r["httpVersion"], "headers": r["headers"],
               "queryString": raw_params(query_of(r["url"])), "cookies": r.get("cookies", []),
               "headersSize": r.get("headersSize", -1), "bodySize": r.get("bodySize", 0)}
    if "postData" in r:
        pd = {"mimeType": r["postData"].get("mimeType", ""), "text": r["postData"].get("text", "")}
        if pd["mimeType"].startswith("application/x-www-form-urlencoded"):
            pd["params"] = raw_params(pd["text"])
        request["postData"] = pd
    content = content_for(e, "chrome")
    response = {"status": s["status"], "statusText": s["statusText"], "httpVersion": s["httpVersion"],
                "headers": s["headers"], "cookies": s.get("cookies", []), "content": content,
                "redirectURL": s.get("redirectURL", ""), "headersSize": s.get("headersSize", -1),
                "bodySize": s.get("bodySize", -1),
                "_transferSize": s.get("_transferSize", max(s.get("headersSize", 0), 0) + max(s.get("bodySize", 0), 0)),
                "_error": None, "_fetchedViaServiceWorker": False}
    t = e.get("timings", {})
    timings = {"blocked": 0.5, "dns": t.get("dns", -1), "ssl": t.get("ssl", -1), "connect": t.get("connect", -1),
               "send": t.get("send", 0), "wait": t.get("wait", 0), "receive": t.get("receive", 0),
               "_blocked_queueing": 0.4, "_workerStart": -1, "_workerReady": -1, "_workerFetchStart": -1,
               "_workerRespondWithSettled": -1}
    port = urlsplit(r["url"]).port or 80
    return {"_connectionId": str(1000 + port % 1000), "_initiator": initiator,
            "_priority": PRIORITY.get(e.get("_resourceType"), "Low"), "_resourceType": e.get("_resourceType", "other"),
            "cache": {}, "connection": str(1000 + port % 1000), "pageref": page_ref, "request": request,
            "response": response, "serverIPAddress": e.get("serverIPAddress", "127.0.0.1"),
            "startedDateTime": e["startedDateTime"], "time": e.get("time", 0), "timings": timings}


def firefox_headers(headers, resource_type):
    out = []
    for h in headers:
        name = h["name"].lower()
        if name.startswith("sec-ch-ua"):
            continue
        if name == "user-agent":
            h = {"name": h["name"], "value": FIREFOX_UA}
        elif name == "accept" and resource_type == "document":
            h = {"name": h["name"], "value": FIREFOX_DOC_ACCEPT}
        out.append(h)
    return out


def firefox_entry(e, page_ref):
    r, s = e["request"], e["response"]
    headers = firefox_headers(r["headers"], e.get("_resourceType"))
    request = {"bodySize": r.get("bodySize", 0), "method": r["method"], "url": r["url"], "httpVersion": r["httpVersion"],
               "headers": headers, "cookies": r.get("cookies", []), "queryString": decoded_params(query_of(r["url"])),
               "headersSize": sum(len(h["name"]) + len(h["value"]) + 4 for h in headers) + len(r["method"]) + len(r["url"]) + 13}
    if "postData" in r:
        pd = {"mimeType": r["postData"].get("mimeType", ""), "params": [], "text": r["postData"].get("text", "")}
        if pd["mimeType"].startswith("application/x-www-form-urlencoded"):
            pd["params"] = decoded_params(pd["text"])
        request["postData"] = pd
    response = {"status": s["status"], "statusText": s["statusText"], "httpVersion": s["httpVersion"],
                "headers": s["headers"], "cookies": s.get("cookies", []), "content": content_for(e, "firefox"),
                "redirectURL": s.get("redirectURL", ""), "headersSize": s.get("headersSize", -1),
                "bodySize": s.get("bodySize", -1)}
    t = e.get("timings", {})
    timings = {"blocked": 0, "dns": max(t.get("dns", 0), 0), "connect": max(t.get("connect", 0), 0),
               "ssl": max(t.get("ssl", 0), 0), "send": t.get("send", 0), "wait": t.get("wait", 0),
               "receive": t.get("receive", 0)}
    port = urlsplit(r["url"]).port or 80
    return {"pageref": page_ref, "startedDateTime": e["startedDateTime"], "request": request, "response": response,
            "cache": {}, "timings": timings, "time": e.get("time", 0), "_securityState": "insecure",
            "serverIPAddress": e.get("serverIPAddress", "127.0.0.1"), "connection": str(port)}


def saml_tracer_get(url):
    """SAMLTrace.Request.loadGET: split the URL on [&;?], decode, only the first '+' a space."""
    parts = re.split(r"[&;?]", url)
    out = []
    for e in parts[1:]:
        name, sep, value = e.partition("=")
        name = unquote(name.replace("+", " ", 1))
        value = unquote(value.replace("+", " ", 1)) if sep else ""
        out.append([name, value])
    return out


def saml_of(pairs, post):
    for key in ("SAMLRequest", "SAMLResponse"):
        for name, value in pairs:
            if name == key and value:
                try:
                    raw = base64.b64decode(re.sub(r"\s", "", value))
                    xml = raw if post else zlib.decompress(raw, -15)
                    return xml.decode("utf-8")
                except Exception:  # noqa: BLE001 - SAML-tracer shows nothing then either
                    return None
    return None


WEBREQUEST_HIDDEN = {"host", "connection", "content-length", "cache-control", "proxy-connection",
                     "transfer-encoding", "if-modified-since", "if-none-match", "if-range", "pragma"}


def saml_tracer(entries, timestamp):
    requests_ = []
    next_id = 4127
    chain_id = None
    for e in entries:
        r, s = e["request"], e["response"]
        request_id = chain_id if chain_id is not None else str(next_id)
        if chain_id is None:
            next_id += 1
        chain_id = request_id if (300 <= s["status"] < 400 and is_navigation(e)) else None
        item = {"method": r["method"], "url": r["url"], "requestId": request_id,
                "requestHeaders": [h for h in r["headers"] if h["name"].lower() not in WEBREQUEST_HIDDEN]}
        pairs = []
        if r["method"] == "GET":
            item["get"] = saml_tracer_get(r["url"])
            pairs = item["get"]
        elif "postData" in r and r["postData"].get("mimeType", "").startswith("application/x-www-form-urlencoded"):
            pairs = [[n, v] for n, v in parse_qsl(r["postData"].get("text", ""), keep_blank_values=True)]
            form = {}
            for n, v in pairs:
                form.setdefault(n, []).append(v)
            item["postData"] = form
            item["post"] = pairs
        names = {p[0] for p in pairs}
        if names & {"SAMLRequest", "SAMLResponse", "SAMLart"}:
            item["protocol"] = "SAML-P"
            xml = saml_of(pairs, r["method"] == "POST")
            if xml is not None:
                item["saml"] = xml
        item["responseStatus"] = s["status"]
        item["responseStatusText"] = "%s %d %s" % (s.get("httpVersion", "HTTP/1.1"), s["status"], s["statusText"])
        item["responseHeaders"] = s["headers"]
        requests_.append(item)
    return {"requests": requests_, "timestamp": timestamp}


def convert(path):
    with open(path) as f:
        har = json.load(f)
    log = har["log"]
    entries = log["entries"]
    pages, refs = assign_pages(entries)
    docs = last_documents(entries)
    public_pages = [{k: v for k, v in p.items() if not k.startswith("_")} for p in pages]
    base = path[: -len(".playwright.har")] if path.endswith(".playwright.har") else path.rsplit(".", 1)[0]

    chrome = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                      "pages": public_pages,
                      "entries": [chrome_entry(e, i, refs.get(i, "page_1"), initiator_of(entries, i, docs))
                                  for i, e in enumerate(entries)]}}
    firefox = {"log": {"version": "1.2", "creator": {"name": "Firefox", "version": FIREFOX_VERSION},
                       "browser": {"name": "Firefox", "version": FIREFOX_VERSION},
                       "pages": copy.deepcopy(public_pages),
                       "entries": [firefox_entry(e, refs.get(i, "page_1")) for i, e in enumerate(entries)]}}
    last = entries[-1]["startedDateTime"] if entries else datetime.datetime.utcnow().isoformat() + "Z"
    tracer = saml_tracer(entries, last)
    for suffix, doc, indent in ((".chrome.har", chrome, 2), (".firefox.har", firefox, 2), (".saml-tracer.json", tracer, 2)):
        with open(base + suffix, "w") as f:
            json.dump(doc, f, indent=indent, ensure_ascii=False)
            f.write("\n")
    return base


# ---------------------------------------------------------------------------------------------
# ECP (PAOS) with http.client, written as HAR

PAOS_HEADER = 'ver="urn:liberty:paos:2003-08";"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp"'
PAOS_ACCEPT = "text/html; application/vnd.paos+xml"
UA = "record_real_chains.py ECP (Python %d.%d http.client)" % sys.version_info[:2]


class HarRecorder:
    def __init__(self):
        self.entries = []
        self.cookies = {}  # host -> {name: value}

    def request(self, method, url, headers=None, body=None):
        u = urlsplit(url)
        headers = list(headers or [])
        names = {h[0].lower() for h in headers}
        jar = self.cookies.get(u.netloc, {})
        if jar and "cookie" not in names:
            headers.append(("Cookie", "; ".join("%s=%s" % kv for kv in jar.items())))
        if "user-agent" not in names:
            headers.insert(0, ("User-Agent", UA))
        data = body.encode("utf-8") if isinstance(body, str) else body
        started = datetime.datetime.now(datetime.timezone.utc)
        t0 = time.monotonic()
        conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=30)
        conn.putrequest(method, (u.path or "/") + ("?" + u.query if u.query else ""), skip_accept_encoding=True)
        sent = [("Host", u.netloc)]
        for name, value in headers:
            conn.putheader(name, value)
            sent.append((name, value))
        if data is not None:
            conn.putheader("Content-Length", str(len(data)))
            sent.append(("Content-Length", str(len(data))))
        conn.endheaders(data)
        t1 = time.monotonic()
        resp = conn.getresponse()
        t2 = time.monotonic()
        raw = resp.read()
        t3 = time.monotonic()
        conn.close()
        resp_headers = resp.getheaders()
        cookies = []
        for name, value in resp_headers:
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                cname, _, cvalue = pair.partition("=")
                self.cookies.setdefault(u.netloc, {})[cname.strip()] = cvalue.strip()
                cookies.append({"name": cname.strip(), "value": cvalue.strip()})
        mime = resp.getheader("Content-Type", "")
        try:
            text, encoding = raw.decode("utf-8"), None
        except UnicodeDecodeError:
            text, encoding = base64.b64encode(raw).decode(), "base64"
        request = {"method": method, "url": url, "httpVersion": "HTTP/1.1",
                   "cookies": [{"name": k, "value": v} for k, v in jar.items()],
                   "headers": [{"name": n, "value": v} for n, v in sent],
                   "queryString": decoded_params(u.query),
                   "headersSize": -1, "bodySize": len(data) if data is not None else 0}
        if data is not None:
            ctype = next((v for n, v in headers if n.lower() == "content-type"), "")
            request["postData"] = {"mimeType": ctype, "text": data.decode("utf-8")}
        content = {"size": len(raw), "mimeType": mime, "text": text}
        if encoding:
            content["encoding"] = encoding
        location = resp.getheader("Location", "")
        self.entries.append({
            "startedDateTime": started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "time": round((t3 - t0) * 1000, 3),
            "request": request,
            "response": {"status": resp.status, "statusText": resp.reason, "httpVersion": "HTTP/1.1",
                         "cookies": cookies, "headers": [{"name": n, "value": v} for n, v in resp_headers],
                         "content": content, "redirectURL": urljoin(url, location) if location else "",
                         "headersSize": -1, "bodySize": len(raw)},
            "cache": {},
            "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": round((t1 - t0) * 1000, 3),
                        "wait": round((t2 - t1) * 1000, 3), "receive": round((t3 - t2) * 1000, 3)},
            "serverIPAddress": "127.0.0.1",
        })
        return resp.status, dict((n.lower(), v) for n, v in resp_headers), raw.decode("utf-8", "replace"), location

    def har(self, comment):
        return {"log": {"version": "1.2", "creator": {"name": "record_real_chains.py", "version": "1",
                                                      "comment": comment},
                        "entries": self.entries}}


def ecp_login(a):
    import xml.etree.ElementTree as ET

    ns = {"S": "http://schemas.xmlsoap.org/soap/envelope/", "paos": "urn:liberty:paos:2003-08",
          "ecp": "urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp", "samlp": "urn:oasis:names:tc:SAML:2.0:protocol"}
    rec = HarRecorder()
    # 1. The protected page, as an ECP client asks for it: the SP answers with a PAOS request.
    status, headers, body, _ = rec.request("GET", a.start, [("Accept", PAOS_ACCEPT), ("PAOS", PAOS_HEADER)])
    if status != 200 or "paos" not in headers.get("content-type", ""):
        raise SystemExit("ecp: the SP did not answer with a PAOS request (HTTP %d, %s)" % (status, headers.get("content-type")))
    first_body = body
    envelope = ET.fromstring(body)
    paos_request = envelope.find("S:Header/paos:Request", ns)
    response_consumer = paos_request.get("responseConsumerURL")
    message_id = paos_request.get("messageID")
    relay = envelope.find("S:Header/ecp:RelayState", ns)
    authn_request = envelope.find("S:Body/samlp:AuthnRequest", ns)
    if authn_request is None:
        raise SystemExit("ecp: no AuthnRequest in the SP's PAOS request")
    # 2. The AuthnRequest alone, in a SOAP envelope, to the IdP's SOAP endpoint with HTTP Basic.
    #    Messages are forwarded as the bytes received (never re-serialized: a re-serialized signed
    #    Response no longer verifies, which is what Shibboleth says when a client does that).
    idp_body = ('<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body>%s</S:Body></S:Envelope>'
                % verbatim(body, "AuthnRequest"))
    basic = base64.b64encode(("%s:%s" % (a.username, a.password)).encode()).decode()
    status, headers, body, _ = rec.request("POST", a.idp_ecp, [
        ("Content-Type", "text/xml; charset=utf-8"), ("SOAPAction", "http://www.oasis-open.org/committees/security"),
        ("Authorization", "Basic " + basic)], idp_body)
    if status != 200:
        result = {"outcome": "idp-refused", "status": status, "body": body[:600]}
        write_har(rec, a, result)
        return result
    idp_envelope = ET.fromstring(body)
    ecp_response = idp_envelope.find("S:Header/ecp:Response", ns)
    acs = ecp_response.get("AssertionConsumerServiceURL")
    if acs != response_consumer:
        raise SystemExit("ecp: the IdP's ACS %s is not the SP's responseConsumerURL %s: an ECP client stops" % (acs, response_consumer))
    if idp_envelope.find("S:Body/samlp:Response", ns) is None:
        raise SystemExit("ecp: no Response in the IdP's SOAP answer")
    # 3. The Response to the SP's ECP ACS, with the PAOS response header and the RelayState.
    header = '<paos:Response xmlns:paos="urn:liberty:paos:2003-08" S:actor="http://schemas.xmlsoap.org/soap/actor/next" S:mustUnderstand="1"%s/>' % (
        ' refToMessageID="%s"' % message_id if message_id else "")
    if relay is not None:
        header += verbatim(first_body, "RelayState", in_body=False)
    sp_body = ('<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Header>%s</S:Header><S:Body>%s</S:Body></S:Envelope>'
               % (header, verbatim(body, "Response")))
    status, headers, body, location = rec.request("POST", response_consumer, [("Content-Type", "application/vnd.paos+xml")], sp_body)
    # 4. The resource, with the SP's session cookie.
    target = urljoin(response_consumer, location) if status in (301, 302, 303, 307) and location else a.start
    status, headers, body, _ = rec.request("GET", target, [("Accept", "text/html")])
    result = {"outcome": "success" if status == 200 else "failure", "status": status, "url": target, "body": body[:600],
              "responseConsumerURL": response_consumer}
    write_har(rec, a, result)
    return result


def verbatim(text, local_name, in_body=True):
    """The element <prefix:local_name …>…</prefix:local_name> as it is in text: the first one in
    the SOAP Body (in_body) or anywhere."""
    start = 0
    if in_body:
        body = re.search(r"<([\w.-]+:)?Body[\s>]", text)
        start = body.end() if body else 0
    m = re.compile(r"<([\w.-]+:)?%s[\s>/]" % local_name).search(text, start)
    if not m:
        raise SystemExit("ecp: no %s element" % local_name)
    prefix = m.group(1) or ""
    end = text.find("</%s%s>" % (prefix, local_name), m.start())
    if end < 0:
        raise SystemExit("ecp: %s is not closed" % local_name)
    return text[m.start(): end + len("</%s%s>" % (prefix, local_name))]


def write_har(rec, a, result):
    comment = ("SAML ECP (PAOS) login through a real Shibboleth SP and a real SimpleSAMLphp IdP, recorded by "
               "scripts/record_real_chains.py ecp (Python http.client; no browser speaks ECP). Outcome: %s"
               % result["outcome"])
    with open(a.out, "w") as f:
        json.dump(rec.har(comment), f, indent=2, ensure_ascii=False)
        f.write("\n")


# ---------------------------------------------------------------------------------------------
# Real ECP client libraries through the recording proxy (scripts/recording_proxy.py)

# client name -> (wrapper in Tests/RealClients, the distributions named in the HAR's creator)
ECP_CLIENTS = {
    "requests-ecp": ("requests_ecp_client.py", ("requests-ecp", "requests", "urllib3")),
    "pysaml2": ("pysaml2_ecp.py", ("pysaml2", "requests", "urllib3")),
}
PROXY_ENV = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
             "no_proxy", "NO_PROXY", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def client_versions(python, dists):
    code = ("import sys\nfrom importlib.metadata import version\n"
            "print(' '.join('%s=%s' % (d, version(d)) for d in sys.argv[1:]))")
    out = subprocess.run([python, "-c", code] + list(dists), check=True, capture_output=True, text=True).stdout
    return dict(kv.split("=", 1) for kv in out.split())


def php_log_requests(path, offset):
    """The requests `php -S` logged after offset: [(method, path)]."""
    if not path or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        f.seek(offset)
        text = f.read().decode("utf-8", "replace")
    return re.findall(r"\[\d{3}\]: (\w+) (\S+)", text)


def ecp_client(a):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from recording_proxy import RecordingProxy

    wrapper, dists = ECP_CLIENTS[a.client]
    a.python = os.path.abspath(a.python)  # not realpath: a venv's python is a symlink
    clients_dir = os.path.abspath(a.clients_dir)
    versions = client_versions(a.python, dists)
    result_file = a.out + ".result.json"
    proxy = RecordingProxy(timeout=a.timeout).start()
    env = {k: v for k, v in os.environ.items() if k not in PROXY_ENV and not k.startswith("SAMLH_")}
    env.update({"http_proxy": proxy.url, "HTTP_PROXY": proxy.url, "no_proxy": "", "NO_PROXY": "",
                "SAMLH_START_URL": a.start, "SAMLH_IDP_ECP_URL": a.idp_ecp, "SAMLH_IDP_ENTITY_ID": a.idp_entity_id,
                "SAMLH_USERNAME": a.username, "SAMLH_PASSWORD": a.password, "SAMLH_RESULT_FILE": result_file,
                "SAMLH_REQUEST_TIMEOUT": str(a.timeout)})
    php_offset = os.path.getsize(a.php_log) if a.php_log and os.path.exists(a.php_log) else 0
    try:
        run = subprocess.run([a.python, os.path.join(clients_dir, wrapper)], cwd=clients_dir, env=env,
                             capture_output=True, text=True, timeout=120)
    finally:
        proxy.stop()
    try:
        with open(result_file, encoding="utf-8") as f:
            outcome = json.load(f)
    finally:
        if os.path.exists(result_file):
            os.remove(result_file)
    described = "%s %s (%s)" % (a.client, versions[dists[0]], ", ".join("%s %s" % (d, versions[d]) for d in dists[1:]))
    creator_comment = ("recording HTTP forward proxy of scripts/record_real_chains.py (scripts/recording_proxy.py); "
                       "client: %s through Tests/RealClients/%s, unmodified, pointed at the proxy by http_proxy "
                       "(no_proxy empty)" % (described, wrapper))
    comment = ("SAML ECP (PAOS) login through a real Shibboleth SP 3.4 and a real SimpleSAMLphp 1.19 IdP, made by "
               "the real client library %s, recorded by scripts/record-real-chains.sh record-ecp. Client outcome: %s"
               % (described, outcome["outcome"]))
    har = proxy.har(creator_comment=creator_comment, comment=comment,
                    browser={"name": a.client, "version": versions[dists[0]],
                             "comment": "Python client library, not a browser; " + described})
    entries = har["log"]["entries"]
    # Everything the client sent went through the proxy: the IdP's own log lists the same requests.
    problems = []
    idp_netloc = urlsplit(a.idp_ecp).netloc
    seen_idp = [(e["request"]["method"], urlsplit(e["request"]["url"]).path) for e in entries
                if urlsplit(e["request"]["url"]).netloc == idp_netloc]
    logged = php_log_requests(a.php_log, php_offset)
    if logged is not None and logged != seen_idp:
        problems.append("the IdP logged %s, the proxy saw %s" % (logged, seen_idp))
    for e in entries:
        if "_error" in e:
            problems.append("proxy error: %s %s: %s" % (e["request"]["method"], e["request"]["url"], e["_error"]))
        # The bodies in the HAR are the bytes that crossed the proxy (a signature still verifies).
        post = e["request"].get("postData")
        if post and "_encoding" not in post and hashlib.sha256(post["text"].encode("utf-8")).hexdigest() != e["request"]["_bodySha256"]:
            problems.append("request body of %s is not kept byte for byte" % e["request"]["url"])
        content = e["response"]["content"]
        if content.get("compression") == 0 and "encoding" not in content and \
                hashlib.sha256(content["text"].encode("utf-8")).hexdigest() != e["response"]["_bodySha256"]:
            problems.append("response body of %s is not kept byte for byte" % e["request"]["url"])
    with open(a.out, "w", encoding="utf-8") as f:  # written either way: a failed run is worth reading
        json.dump(har, f, indent=2, ensure_ascii=False)
        f.write("\n")
    report = {"client": described, "outcome": outcome["outcome"], "error": outcome.get("error", ""),
              "details": outcome.get("details", {}), "exit": run.returncode, "entries": len(entries),
              "idp_log": logged, "problems": problems,
              "ok": outcome["outcome"] == "success" and not problems, "har": a.out,
              "stdout": run.stdout[-400:], "stderr": run.stderr[-2000:]}
    report["exchanges"] = ["%s %s %s" % (e["request"]["method"], e["request"]["url"][:160], e["response"]["status"])
                           for e in entries]
    return report


def summary(directory):
    for name in sorted(os.listdir(directory)):
        if not (name.endswith(".har") or name.endswith(".json")):
            continue
        with open(os.path.join(directory, name)) as f:
            doc = json.load(f)
        items = doc["log"]["entries"] if "log" in doc else doc["requests"]
        print("%s: %d entries, %d bytes" % (name, len(items), os.path.getsize(os.path.join(directory, name))))
        for e in items:
            if "request" in e:
                print("   %-4s %s %s" % (e["request"]["method"], e["response"]["status"], e["request"]["url"][:140]))
            else:
                print("   %-4s %s %s" % (e["method"], e["responseStatus"], e["url"][:140]))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("browser")
    b.add_argument("--start", required=True)
    b.add_argument("--username", required=True)
    b.add_argument("--password", required=True)
    b.add_argument("--wrong-password", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--prefix", default="ssp-shibboleth")
    b.add_argument("--chromium", default="/usr/bin/chromium")
    c = sub.add_parser("convert")
    c.add_argument("har")
    e = sub.add_parser("ecp")
    e.add_argument("--start", required=True)
    e.add_argument("--idp-ecp", required=True)
    e.add_argument("--username", required=True)
    e.add_argument("--password", required=True)
    e.add_argument("--out", required=True)
    r = sub.add_parser("ecp-client")
    r.add_argument("--client", required=True, choices=sorted(ECP_CLIENTS))
    r.add_argument("--python", required=True, help="the clients' venv interpreter (.venv-real-clients/bin/python)")
    r.add_argument("--clients-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "RealClients"))
    r.add_argument("--start", required=True)
    r.add_argument("--idp-ecp", required=True)
    r.add_argument("--idp-entity-id", required=True)
    r.add_argument("--username", required=True)
    r.add_argument("--password", required=True)
    r.add_argument("--php-log", help="php -S's log: its requests are compared with the proxy's")
    r.add_argument("--timeout", type=float, default=15)
    r.add_argument("--out", required=True)
    s = sub.add_parser("summary")
    s.add_argument("dir")
    a = p.parse_args(argv)
    if a.command == "browser":
        record_browser(a)
    elif a.command == "convert":
        print(convert(a.har))
    elif a.command == "ecp":
        result = ecp_login(a)
        print(json.dumps(result, indent=1))
        return 0 if result["outcome"] == "success" else 1
    elif a.command == "ecp-client":
        report = ecp_client(a)
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return 0 if report["ok"] else 1
    elif a.command == "summary":
        summary(a.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
