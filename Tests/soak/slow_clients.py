#!/usr/bin/env python3
"""Slow clients cannot deny service: a flowserver process (memory store, `--read-timeout 3`)
gets 2,000 connections from 127.0.0.1 that each send half a request line and then trickle a
header byte every second, while a client bound to 127.0.0.2 asks for `/healthz` and a page.

Asserts: every answer to 127.0.0.2 within 1 s; every slow connection closed by the server
within the read deadline and two seconds of sweep and slack; RSS bounded (at most 30 MB above
its start); SIGTERM afterwards stops the server within 10 s with status 0. Exit status 1 when a
check fails.
"""
import errno
import os
import selectors
import socket
import sys
import time
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from soak import Failure, FlowServer, ROOT  # noqa: E402

SLOW = 2000
READ_TIMEOUT = 3


def timed_get(port, path, cookie=None):
    """A GET from 127.0.0.2 on a fresh connection: the status, headers and seconds it took."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0)) as connection:
        headers = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if cookie:
            headers += f"Cookie: {cookie}\r\n"
        connection.sendall((headers + "\r\n").encode())
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")
    fields = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in head[1:] if ":" in line}
    return int(head[0].split()[1]), fields, time.monotonic() - started


def main():
    binary = os.environ.get("FLOWSERVER_BIN") or str(ROOT / ".build" / "debug" / "flowserver")
    server = FlowServer(binary, "memory", extra=["--read-timeout", str(READ_TIMEOUT), "--max-connections-per-client", "64"])
    problems = []
    try:
        rss_before = server.rss_megabytes()
        selector = selectors.DefaultSelector()
        opened = {}
        for _ in range(SLOW):
            slow = socket.socket()
            slow.bind(("127.0.0.1", 0))
            slow.setblocking(False)
            if slow.connect_ex(("127.0.0.1", server.port)) not in (0, errno.EINPROGRESS):
                slow.close()
                continue
            opened[slow] = time.monotonic()
            selector.register(slow, selectors.EVENT_READ)
        time.sleep(0.2)
        for slow in list(opened):
            try:
                slow.send(b"GET /onboarding/lo")
            except OSError:
                pass
        closed_after = []
        slowest = 0.0
        started = time.monotonic()
        last_trickle = started
        while time.monotonic() - started < READ_TIMEOUT + 5:
            for key, _ in selector.select(timeout=0.1):
                slow = key.fileobj
                try:
                    data = slow.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    closed_after.append(time.monotonic() - opened.pop(slow))
                    selector.unregister(slow)
                    slow.close()
            if time.monotonic() - last_trickle >= 1:
                last_trickle = time.monotonic()
                for slow in list(opened):
                    try:
                        slow.send(b"x")
                    except OSError:
                        pass
                try:
                    status, _, took = timed_get(server.port, "/healthz")
                    if status != 200:
                        problems.append(f"/healthz from 127.0.0.2 answered {status}")
                    status, fields, took_redirect = timed_get(server.port, "/")
                    cookie = fields.get("set-cookie", "").split(";")[0]
                    status_page, _, took_page = timed_get(server.port, fields.get("location", "/"), cookie)
                    if status != 303 or status_page != 200:
                        problems.append(f"a new visitor from 127.0.0.2 got {status} then {status_page}")
                    slowest = max(slowest, took, took_redirect, took_page)
                except OSError as error:
                    problems.append(f"127.0.0.2 got no answer within 5 s ({type(error).__name__})")
                    slowest = max(slowest, 5.0)
                    break
        if slowest > 1.0:
            problems.append(f"an answer to 127.0.0.2 took {slowest:.2f} s (limit 1 s)")
        if opened:
            problems.append(f"{len(opened)} slow connections were still open after {READ_TIMEOUT + 5} s")
        held = [seconds for seconds in closed_after if seconds > 0.5]
        if not held:
            problems.append("no slow connection was held until its deadline (none was accepted?)")
        elif max(held) > READ_TIMEOUT + 2.5:
            problems.append(f"a slow connection was closed only after {max(held):.1f} s (deadline {READ_TIMEOUT} s)")
        rss_after = server.rss_megabytes()
        if rss_after > rss_before + 30:
            problems.append(f"RSS grew from {rss_before:.1f} MB to {rss_after:.1f} MB")
        seconds, status = server.stop()
        if status != 0:
            problems.append(f"SIGTERM: status {status} after {seconds:.1f} s")
        print(f"slow clients: {SLOW} opened, {len(held)} held until their deadline (latest closed after "
              f"{max(held or [0]):.1f} s), {len(closed_after) - len(held)} refused at once; slowest answer to 127.0.0.2 "
              f"{slowest:.3f} s; RSS {rss_before:.1f} → {rss_after:.1f} MB", flush=True)
    except Failure as failure:
        problems.append(str(failure))
    finally:
        server.kill()
    if problems:
        print("slow clients: FAILED " + "; ".join(problems) + f"\nstderr: {server.errors()}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
