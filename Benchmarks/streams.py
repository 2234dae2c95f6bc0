#!/usr/bin/env python3
"""What live tabs cost (issue 21): a release `flowserver` on the memory store with open event
streams (`GET /_events`), each a connection of its own from this process.

Measures, and prints as a Markdown table: the page reload rate (wrk -t2 -c64, `GET /movies/1` of
an onboarded session) with no stream open and with 5,000 open, alternately; the RSS per open
stream (from 0 to 10,000 streams); and how long a version change takes to reach a waiting
stream (an API step, then the time until its event arrives, median of 200).

Usage: python3 Benchmarks/streams.py [FLOWSERVER_BINARY]
Environment: STREAMS (default "5000 10000"), ROUNDS (default 3), DURATION (wrk seconds, default 5).
"""
import json
import os
import pathlib
import re
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests" / "soak"))
from soak import FlowServer, call, onboarded_session  # noqa: E402

STREAMS = [int(n) for n in os.environ.get("STREAMS", "5000 10000").split()]
ROUNDS = int(os.environ.get("ROUNDS", "3"))
DURATION = int(os.environ.get("DURATION", "5"))


def open_streams(port, session, count):
    """`count` connections to `/_events` of `session`, each past its first bytes."""
    streams = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(f"GET /_events HTTP/1.1\r\nHost: x\r\nCookie: flowserver_session={session}\r\n\r\n".encode())
        streams.append(connection)
    for connection in streams:
        connection.settimeout(10)
        data = b""
        while b"retry:" not in data:
            chunk = connection.recv(4096)
            if not chunk:
                raise RuntimeError("a stream closed before it started")
            data += chunk
    return streams


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))


def page_rate(port, session):
    output = subprocess.run(
        ["wrk", "-t2", "-c64", f"-d{DURATION}s", "-H", f"Cookie: flowserver_session={session}", f"http://127.0.0.1:{port}/movies/1"],
        capture_output=True, text=True).stdout
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))


def wait_for_event(selector, stream):
    data = b""
    while b"event: version" not in data:
        if not selector.select(timeout=5):
            raise RuntimeError("no event within 5 s")
        data += stream.recv(65536)


def event_latency(port, session, samples=200):
    """Seconds from an API step's answer to its event on a waiting stream: the median."""
    [stream] = open_streams(port, session, 1)
    stream.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    bearer = {"Authorization": f"Bearer {session}", "Content-Type": "application/json"}
    latencies = []
    for index in range(samples):
        body = json.dumps({"step": {"name": "movieIsPicked", "params": {"withId": index % 12 + 1}}}).encode()
        started = time.perf_counter()
        status, _, _ = call(port, "POST", "/api/v1/session/steps", bearer, body)
        assert status == 200, status
        wait_for_event(selector, stream)
        latencies.append(time.perf_counter() - started)
        call(port, "POST", "/api/v1/session/visits", bearer, b'{"url":"/wishlist"}')
        wait_for_event(selector, stream)  # the visit's
    stream.close()
    return statistics.median(latencies)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parent / ".build" / "release" / "flowserver")
    most = max(STREAMS)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, most * 2 + 1000)), hard))
    server = FlowServer(binary, "memory", extra=[
        "--max-connections", str(most + 1000), "--max-connections-per-client", "0", "--max-event-streams", str(most + 10),
        "--max-event-streams-per-session", str(most + 10), "--new-sessions-per-minute", "0"])
    try:
        server.wait_until_explored()
        reader, _, _ = onboarded_session(server.port)
        watcher, _, _ = onboarded_session(server.port)
        call(server.port, "POST", "/api/v1/session/steps", {"Authorization": f"Bearer {reader}", "Content-Type": "application/json"},
             b'{"step":{"name":"movieIsPicked","params":{"withId":1}}}')
        page_rate(server.port, reader)  # warm-up
        latency_idle = event_latency(server.port, watcher)
        before = rss_mb(server.process.pid)
        rows, streams, rates = [], [], {"without": [], "with": []}
        for count in sorted(STREAMS):
            streams += open_streams(server.port, watcher, count - len(streams))
            time.sleep(1)
            rows.append((count, rss_mb(server.process.pid)))
            if count == min(STREAMS):
                for round_number in range(ROUNDS):
                    rates["with"].append(page_rate(server.port, reader))
                latency_busy = event_latency(server.port, reader)
        for connection in streams:
            connection.close()
        time.sleep(2)
        for round_number in range(ROUNDS):
            rates["without"].append(page_rate(server.port, reader))
        without, with_streams = statistics.median(rates["without"]), statistics.median(rates["with"])
        print(f"\nLive tabs (Benchmarks/streams.py, memory store, wrk -t2 -c64 -d{DURATION}s, {ROUNDS} rounds):\n")
        print("| measurement | result | target |\n| --- | --- | --- |")
        print(f"| page reloads, no stream open | {without:,.0f} req/s | — |")
        print(f"| page reloads, {min(STREAMS):,} streams open | {with_streams:,.0f} req/s ({with_streams / without:.2f}) | ≥ 0.90 |")
        for count, rss in rows:
            print(f"| RSS with {count:,} streams open | {rss:.0f} MB (+{rss - before:.0f} MB, {(rss - before) * 1024 / count:.1f} KB a stream) "
                  f"| {'10,000 under +100 MB' if count == 10000 else '—'} |")
        print(f"| a version change to a waiting stream, median | {latency_idle * 1000:.2f} ms "
              f"({latency_busy * 1000:.2f} ms with {min(STREAMS):,} streams open; both from the step's request) | < 5 ms |")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
