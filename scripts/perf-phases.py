#!/usr/bin/env python3
"""Charges `perf record --call-graph dwarf` samples of `samlharness serve` to phases.

    perf script -F comm,tid,ip,sym,dso | swift demangle --simplified > perf.txt
    scripts/perf-phases.py perf.txt [MS_PER_LOGIN]

Each sample goes to the innermost phase its stack passes through (the first marker met from the
leaf up); with MS_PER_LOGIN (the server's CPU per login, measured apart from /proc), the shares
are also printed as milliseconds per login. A Markdown table on stdout; the table of
docs/performance.md ("Issue 25") was made this way (scripts/profile-idp.sh runs it all).
"""
import collections
import sys

# (phase, markers): a frame containing a marker belongs to the phase; leaf-most match wins.
PHASES = [
    ("RSA (libcrypto)", ["RSA_sign", "EVP_SignFinal", "EVP_DigestSignFinal", "BN_mod_exp"]),
    ("xmlsec c14n+digest+transforms", ["xmlSecDSigCtxSign"]),
    ("registerIDs", ["XMLDocument.registerIDs"]),
    ("XML parse", ["XMLDocument.__allocating_init(parsing", "XMLDocument.init(parsing", "xmlParseDocument",
                   "cxmlsec_parse_memory"]),
    ("XML serialise", ["XMLDocument.serialized", "XMLElement.serialized", "serializedString"]),
    ("AuthnRequest read", ["AuthnRequest.init(element"]),
    ("inflate", ["RawDeflate.inflate"]),
    ("base64", ["SAMLBase64", "PostBinding.encode"]),
    ("auto-post form", ["autoSubmitForm"]),
    ("XML text building", ["Assertion.xml", "Response.xml", "Assertion.make", "Response.make",
                           "IdPResponseBuilder.assertion"]),
    ("mustache/login page", ["Mustache", "MockIdP.page(for"]),
    ("rawQuery/query", ["rawQuery", "QueryParameter.parse", "queryValue", "queryPart"]),
    ("cookies", ["MockRequest.cookies", "MockRequest.cookie("]),
    ("traffic log", ["TrafficLog", "TrafficEntry"]),
    ("hummingbird response conv", ["hummingbirdResponse"]),
    ("NIO: llhttp/HTTP decode", ["llhttp", "HTTPDecoder"]),
    ("NIO: HTTP encode", ["HTTPResponseEncoder", "HTTPEncoder"]),
    ("NIO: socket write", ["writeToSocket", "flushNow", "flush0"]),
    ("NIO: socket read", ["readFromSocket"]),
    ("NIO: epoll", ["epoll_wait", "whenReady0"]),
]


def samples(path):
    """Stacks (leaf first) of `perf script` output."""
    stack = None
    with open(path, errors="replace") as text:
        for line in text:
            if not line.strip():
                if stack is not None:
                    yield stack
                stack = None
                continue
            if not line[0].isspace():
                stack = []
                continue
            parts = line.strip().split(" ", 1)
            if stack is not None and len(parts) > 1:
                stack.append(parts[1])
    if stack:
        yield stack


def phase(stack):
    for frame in stack:
        for name, markers in PHASES:
            if any(marker in frame for marker in markers):
                return name
    leaf = stack[0] if stack else ""
    if "kallsyms" in leaf:
        return "kernel (other)"
    on_event_loop = any("SelectableEventLoop" in f for f in stack) and not any("swift_job_run" in f for f in stack)
    return "NIO: other" if on_event_loop else "other Swift/runtime/alloc"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    per_login = float(sys.argv[2]) if len(sys.argv) == 3 else None
    counts = collections.Counter(phase(stack) for stack in samples(sys.argv[1]))
    total = sum(counts.values())
    if not total:
        sys.exit("perf-phases: no samples in " + sys.argv[1])
    print("| phase | share | ms per login |" if per_login else "| phase | share |")
    print("|---|---|---|" if per_login else "|---|---|")
    for name, count in counts.most_common():
        share = count / total
        print("| %s | %.1f%% | %.3f |" % (name, 100 * share, share * per_login) if per_login
              else "| %s | %.1f%% |" % (name, 100 * share))
    print("\n%d samples" % total + ("; %.3f ms of server CPU per login" % per_login if per_login else ""))


if __name__ == "__main__":
    main()
