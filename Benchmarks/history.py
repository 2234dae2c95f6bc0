#!/usr/bin/env python3
"""What history costs and what retention saves (issue 24), on a release `flowserver`.

Time travel: one API session made 10,000 entries long (a movie picked, then Back, alternately),
with `--history-limit 0` (everything kept), on the memory and the SQLite store; then the time of
`GET /api/v1/session/history/{seq}/state` (client-side, one connection per request) for the last
entry, the second, and 200 entries picked at random: median and p99.

Retention: the step benchmark (wrk, steps.lua: a form step and a Back visit alternately, 16
sessions, 64 connections) run for LONG seconds against a server keeping every entry
(`--history-limit 0`) and one with the default bound (1,000), each on the memory and the SQLite
store: RSS, the SQLite file's size (with its WAL) and the history rows kept, after the run.

Purge: the same step run on servers whose sessions expire 5 s after their last use
(`--session-ttl 5`), then a wait past the purger's next round (it runs every 60 s): sessions,
history rows, file size and RSS before and after.

Usage: python3 Benchmarks/history.py [FLOWSERVER_BINARY]
Environment: ENTRIES (default 10000), LONG (wrk seconds, default 60).
"""
import json
import os
import pathlib
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests" / "soak"))
from soak import FlowServer, call, onboarded_session  # noqa: E402

ENTRIES = int(os.environ.get("ENTRIES", "10000"))
LONG = int(os.environ.get("LONG", "60"))
COMMON = ["--max-connections-per-client", "0", "--new-sessions-per-minute", "0"]


def long_history(port, entries):
    """A session whose history has at least `entries` entries; its id and last seq."""
    session, _, _ = onboarded_session(port)
    bearer = {"Authorization": f"Bearer {session}", "Content-Type": "application/json"}
    seq = 0
    index = 0
    while seq < entries:
        index += 1
        if index % 2:
            body = json.dumps({"step": {"name": "movieIsPicked", "params": {"withId": index % 12 + 1}}}).encode()
            status, _, answer = call(port, "POST", "/api/v1/session/steps", bearer, body)
        else:
            status, _, answer = call(port, "POST", "/api/v1/session/visits", bearer, b'{"url":"/wishlist"}')
        assert status == 200, (status, answer[:200])
        seq = json.loads(answer)["entry"]["seq"]
    return session, seq


def state_times(port, session, seqs):
    """Milliseconds of `GET …/history/{seq}/state` for each of `seqs`."""
    bearer = {"Authorization": f"Bearer {session}"}
    times = []
    for seq in seqs:
        started = time.perf_counter()
        status, _, body = call(port, "GET", f"/api/v1/session/history/{seq}/state", bearer)
        times.append((time.perf_counter() - started) * 1000)
        assert status == 200, (seq, status, body[:200])
    return times


def p99(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def time_travel(binary, work):
    rows = []
    for name, store in [("memory", "memory"), ("SQLite", f"sqlite:{work}/travel.sqlite")]:
        server = FlowServer(binary, store, extra=COMMON + ["--history-limit", "0"])
        try:
            server.wait_until_explored()
            started = time.time()
            session, last = long_history(server.port, ENTRIES)
            made = time.time() - started
            state_times(server.port, session, [last] * 5)  # warm-up
            at_last = state_times(server.port, session, [last] * 50)
            at_second = state_times(server.port, session, [2] * 50)
            rng = random.Random(24)
            anywhere = state_times(server.port, session, [rng.randint(1, last) for _ in range(200)])
            rows.append((name, last, made, at_last, at_second, anywhere))
        finally:
            server.kill()
    return rows


def sqlite_figures(path):
    size = sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT count(*) FROM history").fetchone()[0]
    return size / 1e6, rows


def step_run(binary, store, limit, work, server=None):
    """Steps/s and RSS after LONG seconds of steps; `server` is left running when given."""
    own = server is None
    server = server or FlowServer(binary, store, extra=COMMON + ["--history-limit", str(limit)])
    try:
        server.wait_until_explored()
        lines = []
        for _ in range(16):
            session, csrf, node = onboarded_session(server.port)
            lines.append(f"{session} {csrf} {node} /wishlist")
        sessions = work / f"sessions-{limit}-{len(os.listdir(work))}.txt"
        sessions.write_text("\n".join(lines) + "\n")
        output = subprocess.run(
            ["wrk", "-t2", "-c64", f"-d{LONG}s", "-s", str(HERE / "wrk" / "steps.lua"),
             f"http://127.0.0.1:{server.port}/", "--", str(sessions)],
            check=True, capture_output=True, text=True).stdout
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
        rss = server.rss_megabytes()
        return rate, rss
    finally:
        if own:
            server.stop()


def retention(binary, work):
    rows = []
    for limit in (0, 1000):
        rate, rss = step_run(binary, "memory", limit, work)
        path = str(work / f"steps-{limit}.sqlite")
        sqlite_rate, sqlite_rss = step_run(binary, f"sqlite:{path}", limit, work)
        size, history_rows = sqlite_figures(path)
        rows.append((limit, rate, rss, sqlite_rate, sqlite_rss, size, history_rows))
    return rows


def sqlite_sessions(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM sessions").fetchone()[0]


def purge(binary, work):
    """(sessions, history rows, file MB) of a SQLite server and the RSS MB of a memory-store one
    right after the step run, then once their sessions expired and the purger ran."""
    path = str(work / "purge.sqlite")
    figures = {}
    for name, store in [("sqlite", f"sqlite:{path}"), ("memory", "memory")]:
        server = FlowServer(binary, store, extra=COMMON + ["--session-ttl", "5"])
        try:
            step_run(binary, None, None, work, server=server)
            measured = [sqlite_sessions(path), *reversed(sqlite_figures(path))] if name == "sqlite" else []
            before = measured + [server.rss_megabytes()]
            time.sleep(70)  # past the expiry and the purger's next round (every 60 s)
            measured = [sqlite_sessions(path), *reversed(sqlite_figures(path))] if name == "sqlite" else []
            figures[name] = (before, measured + [server.rss_megabytes()])
        finally:
            server.stop()
    return [(*figures["sqlite"][index][:3], figures["memory"][index][0]) for index in (0, 1)]


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parent / ".build" / "release" / "flowserver")
    work = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-history-"))
    travel = time_travel(binary, work)
    kept = retention(binary, work)
    purged = purge(binary, work)
    print(f"\nTime travel (Benchmarks/history.py): `GET /api/v1/session/history/{{seq}}/state` on a history of "
          f"{ENTRIES:,} entries, `--history-limit 0`; milliseconds per request, client-side, a connection each:\n")
    print("| store | entries | made in | last entry, median (p99) | entry 2 | 200 random entries, median (p99) | target |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, last, made, at_last, at_second, anywhere in travel:
        print(f"| {name} | {last:,} | {made:.0f} s | {statistics.median(at_last):.2f} ({p99(at_last):.2f}) | "
              f"{statistics.median(at_second):.2f} | {statistics.median(anywhere):.2f} ({p99(anywhere):.2f}) | < 50 ms |")
    print(f"\nRetention: the step run (steps.lua, 16 sessions, wrk -t2 -c64 -d{LONG}s) keeping every entry and keeping "
          "1,000 per session:\n")
    print("| --history-limit | memory: steps/s | memory: RSS MB | SQLite: steps/s | SQLite: RSS MB | SQLite: file MB | SQLite: history rows |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for limit, rate, rss, sqlite_rate, sqlite_rss, size, rows in kept:
        print(f"| {limit} | {rate:,.0f} | {rss:.0f} | {sqlite_rate:,.0f} | {sqlite_rss:.0f} | {size:.1f} | {rows:,} |")

    print(f"\nPurge: the step run on servers whose sessions expire 5 s after their last use, then 70 s later "
          "(the purger runs every 60 s):\n")
    print("| when | SQLite: sessions | SQLite: history rows | SQLite: file MB | memory: RSS MB |")
    print("| --- | --- | --- | --- | --- |")
    for name, (sessions, rows, size, rss) in zip(["after the run", "after the purge"], purged):
        print(f"| {name} | {sessions:,} | {rows:,} | {size:.1f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
