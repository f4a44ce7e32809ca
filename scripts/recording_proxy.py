#!/usr/bin/env python3
"""A recording HTTP forward proxy (Python standard library only), for scripts/record_real_chains.py:
a real client library is pointed at it with http_proxy/HTTP_PROXY and every exchange it makes is
kept and written as a HAR 1.2 file. Test tooling, not product code.

    proxy = RecordingProxy()            # listens on 127.0.0.1, port 0 (the system picks one)
    proxy.start()                       # serves in a thread; proxy.url is http://127.0.0.1:PORT
    ... run the client with http_proxy=proxy.url, no_proxy= ...
    proxy.stop()
    proxy.write_har(path, creator_comment=..., browser={"name": ..., "version": ...})

What it does and does not do:
  - plain http only: a request target in absolute form (`GET http://host:port/path?q HTTP/1.1`,
    as a client talking to a proxy sends it); CONNECT and origin-form targets are answered 501
    / 400 and recorded as such (an `_error` on the entry), so a client that tries them shows up;
  - each request is forwarded on a NEW http.client connection to the origin the target names
    (closed after the answer), with the client's request line path and query unchanged (not
    re-encoded), its headers in their order and spelling (Host included) minus the hop-by-hop
    ones addressed to the proxy (Proxy-Connection, Proxy-Authorization, Keep-Alive), and its
    body bytes unchanged; nothing is followed: a redirect goes back to the client, whose next
    request is its own entry;
  - the answer goes back to the client with its status, reason, headers in order (duplicates such
    as several Set-Cookie kept) and body bytes unchanged; only the framing may change: a chunked
    origin answer is passed on with a Content-Length instead (http.client de-chunks it), and
    `Connection: close` is forced when the client asked for it;
  - recorded per exchange: method, URL (as the client wrote it), HTTP version, request headers in
    order as the client sent them (the proxy-only ones included: they are the client's traffic),
    the request body, status, reason, response headers in order as the origin sent them, the
    response body (HAR `content.text`: the bytes decoded as UTF-8 when they are UTF-8, else base64
    with `encoding: base64`; a gzip/deflate Content-Encoding is decoded for `text` as HAR asks, with
    `compression` set — the bytes forwarded stay as received), timings measured at the proxy
    (`blocked` = the client's whole request read until the connection to the origin starts,
    `connect`, `send` = writing the request to the origin, `wait` = request sent until the
    origin's status line and headers arrived, `receive` = its body; `dns`, `ssl` -1),
    startedDateTime (when the client's request line arrived), and
    `_bodySha256` of the request and response bodies as they crossed the proxy (so a reader can
    check that `text` re-encoded is the received bytes).
"""
import base64
import datetime
import hashlib
import http.client
import http.server
import json
import threading
import time
import zlib
from urllib.parse import parse_qsl, urljoin, urlsplit

NAME = "recording_proxy.py"
VERSION = "1"
PROXY_ONLY = {"proxy-connection", "proxy-authorization", "keep-alive"}


def _iso(dt):
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _ms(seconds):
    return round(seconds * 1000, 3)


def _query(query):
    return [{"name": n, "value": v} for n, v in parse_qsl(query, keep_blank_values=True)]


def _request_cookies(headers):
    out = []
    for name, value in headers:
        if name.lower() == "cookie":
            for part in value.split(";"):
                if "=" in part:
                    n, _, v = part.strip().partition("=")
                    out.append({"name": n, "value": v})
    return out


def _response_cookies(headers):
    out = []
    for name, value in headers:
        if name.lower() != "set-cookie":
            continue
        parts = [p.strip() for p in value.split(";")]
        n, _, v = parts[0].partition("=")
        cookie = {"name": n.strip(), "value": v.strip()}
        for attr in parts[1:]:
            k, _, val = attr.partition("=")
            k = k.strip().lower()
            if k in ("path", "domain", "expires"):
                cookie[k] = val.strip()
            elif k == "httponly":
                cookie["httpOnly"] = True
            elif k == "secure":
                cookie["secure"] = True
            elif k == "samesite":
                cookie["sameSite"] = val.strip()
        out.append(cookie)
    return out


def _text(raw):
    """(text, encoding) for a HAR body: UTF-8 text as is, anything else base64."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return base64.b64encode(raw).decode("ascii"), "base64"


def _decoded(raw, content_encoding):
    enc = (content_encoding or "").strip().lower()
    try:
        if enc in ("gzip", "x-gzip"):
            return zlib.decompress(raw, 16 + zlib.MAX_WBITS)
        if enc == "deflate":
            try:
                return zlib.decompress(raw)
            except zlib.error:
                return zlib.decompress(raw, -zlib.MAX_WBITS)
    except zlib.error:
        return raw
    return raw


def _header(headers, name):
    return next((v for n, v in headers if n.lower() == name), None)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = NAME
    timeout = 120

    def log_message(self, fmt, *args):  # quiet: the HAR is the log
        pass

    def _read_body(self):
        length = self.headers.get("Content-Length")
        if length is not None:
            return self.rfile.read(int(length))
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return None

    def _fail(self, status, message, started, headers, body):
        data = message.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True
        self.server.recorder.add(self._entry(started, self.path, headers, body, status, message, [], data,
                                             {"send": 0, "wait": 0, "receive": 0}, error=message))

    def _entry(self, started, url, req_headers, req_body, status, reason, resp_headers, raw, timings,
               error=None, server_ip=""):
        u = urlsplit(url)
        request = {"method": self.command, "url": url, "httpVersion": self.request_version,
                   "cookies": _request_cookies(req_headers),
                   "headers": [{"name": n, "value": v} for n, v in req_headers],
                   "queryString": _query(u.query), "headersSize": -1,
                   "bodySize": len(req_body) if req_body is not None else 0}
        if req_body is not None:
            text, encoding = _text(req_body)
            request["postData"] = {"mimeType": _header(req_headers, "content-type") or "", "text": text}
            if encoding:
                request["postData"]["_encoding"] = encoding
            request["_bodySha256"] = hashlib.sha256(req_body).hexdigest()
        decoded = _decoded(raw, _header(resp_headers, "content-encoding"))
        text, encoding = _text(decoded)
        content = {"size": len(decoded), "compression": len(decoded) - len(raw),
                   "mimeType": _header(resp_headers, "content-type") or "", "text": text}
        if encoding:
            content["encoding"] = encoding
        location = _header(resp_headers, "location")
        entry = {
            "startedDateTime": _iso(started),
            "time": round(sum(v for v in timings.values() if v > 0), 3),
            "request": request,
            "response": {"status": status, "statusText": reason, "httpVersion": "HTTP/1.1",
                         "cookies": _response_cookies(resp_headers),
                         "headers": [{"name": n, "value": v} for n, v in resp_headers],
                         "content": content, "redirectURL": urljoin(url, location) if location else "",
                         "headersSize": -1, "bodySize": len(raw), "_bodySha256": hashlib.sha256(raw).hexdigest()},
            "cache": {},
            "timings": dict({"blocked": -1, "dns": -1, "connect": -1, "ssl": -1}, **timings),
            "serverIPAddress": server_ip,
        }
        if error:
            entry["_error"] = error
        entry["_order"] = self._arrival
        return entry

    def do_CONNECT(self):
        self._arrival = self.server.recorder.arrival()
        started = datetime.datetime.now(datetime.timezone.utc)
        self._fail(501, "recording_proxy: CONNECT (https) is not supported", started, list(self.headers.items()), None)

    def _proxy(self):
        started = datetime.datetime.now(datetime.timezone.utc)
        self._arrival = self.server.recorder.arrival()
        req_headers = list(self.headers.items())  # order and spelling as sent
        body = self._read_body()
        t_start = time.monotonic()  # the whole request is in: blocked = until the origin connection starts
        u = urlsplit(self.path)
        if u.scheme != "http" or not u.netloc:
            return self._fail(400, "recording_proxy: not an absolute http URL: %s" % self.path, started, req_headers, body)
        target = self.path[len(u.scheme) + 3 + len(u.netloc):] or "/"
        conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=self.server.recorder.timeout)
        try:
            t0 = time.monotonic()
            conn.connect()
            t1 = time.monotonic()
            conn.putrequest(self.command, target, skip_host=True, skip_accept_encoding=True)
            for name, value in req_headers:
                if name.lower() in PROXY_ONLY or name.lower() == "transfer-encoding":
                    continue
                conn.putheader(name, value)
            if body is not None and self.headers.get("Content-Length") is None:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            t2 = time.monotonic()
            resp = conn.getresponse()
            t3 = time.monotonic()
            raw = resp.read()
            t4 = time.monotonic()
            server_ip = conn.sock.getpeername()[0] if conn.sock else ""
        except OSError as error:
            conn.close()
            return self._fail(502, "recording_proxy: %s: %s" % (type(error).__name__, error), started, req_headers, body)
        conn.close()
        resp_headers = resp.getheaders()  # order and duplicates as received
        client_close = (self.headers.get("Connection") or "").lower() == "close" or self.request_version == "HTTP/1.0"
        self.send_response_only(resp.status, resp.reason)
        for name, value in resp_headers:
            low = name.lower()
            if low == "transfer-encoding" or (low == "content-length") or (low == "connection" and client_close):
                continue
            self.send_header(name, value)
        if self.command != "HEAD" and not (100 <= resp.status < 200 or resp.status in (204, 304)):
            self.send_header("Content-Length", str(len(raw)))
        elif _header(resp_headers, "content-length") is not None:
            self.send_header("Content-Length", _header(resp_headers, "content-length"))
        if client_close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(raw)
        self.wfile.flush()
        timings = {"blocked": _ms(t0 - t_start), "connect": _ms(t1 - t0), "send": _ms(t2 - t1),
                   "wait": _ms(t3 - t2), "receive": _ms(t4 - t3)}
        self.server.recorder.add(self._entry(started, self.path, req_headers, body, resp.status, resp.reason,
                                             resp_headers, raw, timings, server_ip=server_ip))

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = _proxy


class RecordingProxy:
    def __init__(self, host="127.0.0.1", port=0, timeout=30):
        self.timeout = timeout
        self.entries = []
        self._arrivals = 0
        self._lock = threading.Lock()
        self.server = http.server.ThreadingHTTPServer((host, port), _Handler)
        self.server.daemon_threads = True
        self.server.recorder = self
        self.url = "http://%s:%d" % self.server.server_address[:2]
        self._thread = None

    def arrival(self):
        with self._lock:
            self._arrivals += 1
            return self._arrivals

    def add(self, entry):
        with self._lock:
            self.entries.append(entry)

    def start(self):
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def har(self, creator_comment="", browser=None, comment=""):
        with self._lock:
            entries = [{k: v for k, v in e.items() if k != "_order"}
                       for e in sorted(self.entries, key=lambda e: e["_order"])]
        log = {"version": "1.2", "creator": {"name": NAME, "version": VERSION, "comment": creator_comment}}
        if browser:
            log["browser"] = browser
        log["pages"] = []
        log["entries"] = entries
        if comment:
            log["comment"] = comment
        return {"log": log}

    def write_har(self, path, **kwargs):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.har(**kwargs), f, indent=2, ensure_ascii=False)
            f.write("\n")
