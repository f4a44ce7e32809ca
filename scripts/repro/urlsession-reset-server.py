"""Loopback servers for scripts/repro/urlsession-reset-crash.swift (issue 37).

Prints "SP_PORT IDP_PORT" and serves for SECONDS (default 600):
- the SP port answers every request with a 302 to the IdP port (keep-alive);
- the IdP port answers /sso with a 302 to /sso?execution=e1s1 on the same connection, then
  sends the login page's headers with the full Content-Length and half its body, waits
  0-30 ms, and resets the connection (SO_LINGER 0), as the mock IdP's `connection-reset`
  knob does. MODE=close ends it with a FIN instead of the reset.
"""
import asyncio
import os
import random
import socket
import struct
import sys

BODY = b"<html><body>" + b"x" * 3000 + b"</body></html>\n"
IDP_PORT = 0


async def sp(reader, writer):
    try:
        while True:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d/sso\r\nContent-Length: 0\r\n\r\n" % IDP_PORT)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def idp(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        if b" /sso " in head:
            writer.write(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d/sso?execution=e1s1\r\n"
                         b"Content-Length: 0\r\n\r\n" % IDP_PORT)
            await writer.drain()
            await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                     % len(BODY) + BODY[: len(BODY) // 2])
        await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    # The timing of the reset against the client's reads decides the crash: vary it.
    await asyncio.sleep(random.choice([0, 0, 0.001, 0.003, 0.01, 0.03]))
    if os.environ.get("MODE", "reset") == "reset":
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def main():
    global IDP_PORT
    idp_server = await asyncio.start_server(idp, "127.0.0.1", 0)
    IDP_PORT = idp_server.sockets[0].getsockname()[1]
    sp_server = await asyncio.start_server(sp, "127.0.0.1", 0)
    print(sp_server.sockets[0].getsockname()[1], IDP_PORT, flush=True)
    await asyncio.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 600)


asyncio.run(main())
