#!/usr/bin/env python3
"""Sessions cost nothing until they change, against a real `flowserver` on each store (memory,
SQLite, PostgreSQL on a throwaway cluster), with its default limits on new sessions:

1. A flood of cookie-less requests from wrk (what scanners, crawlers and link previews send) —
   `/`, the first page, an unknown path, the inspector, static files, a missing one, `/healthz`,
   `/metrics` — stores nothing: the store counts no live session, SQLite's database file and its
   write-ahead log do not grow, and no error answer sets a cookie.
2. A client storing new sessions as fast as it can from 127.0.0.1 (cookie-less deep links, each
   of which changes a session) is held to the limit: `429` with `Retry-After`, at most the burst
   plus the rate stored; meanwhile a client at 127.0.0.2 creates a session, onboards it and reads
   its page normally.
3. `SIGTERM` stops the server with status 0.

Exit status 1 when a check fails.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cluster import PostgresCluster  # noqa: E402
from soak import Failure, FlowServer, call  # noqa: E402

FLOOD = pathlib.Path(__file__).resolve().parent / "flood.lua"
BURST, PER_MINUTE = 120, 60  # flowserver's defaults


def flood(port, paths, seconds, connections):
    output = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "-s", str(FLOOD), f"http://127.0.0.1:{port}", "--",
         ",".join(paths)],
        capture_output=True, text=True, timeout=seconds + 60)
    line = next((line for line in output.stdout.splitlines() if line.startswith("flood-result ")), None)
    if line is None:
        raise Failure(f"wrk printed no result: {output.stdout[-800:]} {output.stderr[-800:]}")
    result = json.loads(line[len("flood-result "):])
    result["statuses"] = {int(status): count for status, count in result["statuses"].items()}
    return result


def live_sessions(port):
    _, _, body = call(port, "GET", "/metrics")
    match = re.search(rb"^flowserver_sessions_live (\S+)$", body, re.MULTILINE)
    if not match:
        raise Failure("/metrics shows no flowserver_sessions_live")
    return int(float(match.group(1)))


def onboard_from(source, port):
    """Creates and onboards a session from `source` through the API, then reads its page."""
    status, _, body = call(port, "POST", "/api/v1/sessions", {"Content-Type": "application/json"}, b"{}", source=source)
    if status != 201:
        return f"creating a session from {source} answered {status}: {body[:200]!r}"
    session = json.loads(body)["session"]
    bearer = {"Authorization": f"Bearer {session}", "Content-Type": "application/json"}
    for step in ({"name": "userIsLoggedIn", "params": {"name": "Ada"}}, {"name": "apiKeyIsFilledIn", "params": {"apiKey": "k"}}):
        status, _, body = call(port, "POST", "/api/v1/session/steps", bearer, json.dumps({"step": step}).encode(), source=source)
        if status != 200:
            return f"onboarding from {source} answered {status}: {body[:200]!r}"
    status, _, _ = call(port, "GET", "/wishlist", {"Cookie": f"flowserver_session={session}"}, source=source)
    return None if status == 200 else f"the wishlist answered {status} to {source}"


def file_sizes(path):
    return {suffix: os.path.getsize(path + suffix) if os.path.exists(path + suffix) else 0 for suffix in ["", "-wal"]}


def check(name, store, sqlite_path=None):
    server = FlowServer(BINARY, store, extra=["--max-connections-per-client", "0"])
    problems, figures = [], {"store": name}
    try:
        _, headers, _ = call(server.port, "GET", "/")
        first_page = headers["Location"]
        time.sleep(1)  # the migrations' pages copied from the write-ahead log into the file
        before = file_sizes(sqlite_path) if sqlite_path else None
        paths = ["/", first_page, "/wp-login.php", "/_inspector", "/public/site.css", "/public/missing.js", "/healthz", "/metrics"]
        result = flood(server.port, paths, 3, 16)
        figures["flood"] = sum(result["statuses"].values())
        if result["errors"] or sum(result["statuses"].values()) < 1000:
            problems.append(f"the flood got {result['errors']} errors and {result['statuses']} answers")
        if result["cookiesOnErrors"]:
            problems.append(f"{result['cookiesOnErrors']} error answers set a cookie")
        live = live_sessions(server.port)
        if live:
            problems.append(f"{live} sessions stored by {figures['flood']} cookie-less requests")
        if sqlite_path:
            after = file_sizes(sqlite_path)
            figures["sqliteBytes"] = after
            if after[""] > before[""] or after["-wal"] > before["-wal"]:
                problems.append(f"the SQLite files grew from {before} to {after}")

        # New sessions from one address as fast as it can, while another onboards normally.
        outcome = {}
        neighbour = threading.Thread(target=lambda: outcome.setdefault("problem", onboard_from("127.0.0.2", server.port)))
        started = time.monotonic()
        threading.Timer(1.0, neighbour.start).start()
        limited = flood(server.port, ["/movies/3", "/movies/4"], 3, 8)
        seconds = time.monotonic() - started
        time.sleep(0.1)
        neighbour.join(timeout=30)
        statuses = limited["statuses"]
        stored = statuses.get(200, 0) + statuses.get(303, 0)
        figures["limited"] = statuses
        if not statuses.get(429):
            problems.append(f"no 429 among {statuses}")
        if limited["limitedWithoutRetryAfter"]:
            problems.append(f"{limited['limitedWithoutRetryAfter']} answers 429 without Retry-After")
        allowed = BURST + PER_MINUTE * seconds / 60 + 1
        if stored > allowed:
            problems.append(f"{stored} new sessions stored from one address in {seconds:.1f} s (allowed {allowed:.0f})")
        if outcome.get("problem") or "problem" not in outcome:
            problems.append(outcome.get("problem") or "the client at 127.0.0.2 did not finish")
        live = live_sessions(server.port)
        figures["stored"] = live
        # wrk does not count the answers still on their way when it stops (one per connection).
        if not stored + 1 <= live <= stored + 1 + 8:
            problems.append(f"{live} sessions live; expected the {stored} deep links answered (and up to 8 unseen) and the neighbour's")

        seconds, status = server.stop()
        if status != 0:
            problems.append(f"SIGTERM: status {status} after {seconds:.1f} s")
    finally:
        server.kill()
    if problems:
        raise Failure(f"{name}: " + "; ".join(problems) + f"\nfigures: {figures}\nstderr: {server.errors()}")
    return figures


def main():
    failures = []
    for name in ["memory", "sqlite", "postgres"]:
        try:
            if name == "postgres":
                with PostgresCluster() as cluster:
                    figures = check(name, cluster.url)
            elif name == "sqlite":
                with tempfile.TemporaryDirectory() as directory:
                    path = f"{directory}/free.sqlite"
                    figures = check(name, f"sqlite:{path}", sqlite_path=path)
            else:
                figures = check(name, "memory")
            print(f"free sessions: {json.dumps(figures)}", flush=True)
        except Failure as failure:
            failures.append(str(failure))
            print(f"free sessions: FAILED {failure}", flush=True)
    if failures:
        sys.exit(1)


BINARY = os.environ.get("FLOWSERVER_BIN") or str(pathlib.Path(__file__).resolve().parents[2] / ".build" / "debug" / "flowserver")

if __name__ == "__main__":
    main()
