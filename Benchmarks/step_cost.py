#!/usr/bin/env python3
"""What a step costs the server at any session size: `python3 Benchmarks/step_cost.py BINARY`.

For each store of STORES (default "memory sqlite"), each session size of PAGES (default "10 1000":
pages in the session's wishlist stack, grown through the API) and each kind (a form step, an API
step), 8 sessions take steps at their top page alternating with a Back visit
(Benchmarks/wrk/steps_at_top.lua: the tree keeps its size), wrk -t2 -c16 for a 2 s warm-up and
DURATION seconds (default 6), ROUNDS times (default 3) with the sizes alternating. Prints the
medians of requests per second and of the server's CPU time a request, from /proc, and for each
kind the ratio of the largest size to the smallest (issue "Bounded sessions": at most 1.5; a small
session's steps at most 100 µs on the memory store).
"""
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests" / "soak"))
sys.path.insert(0, str(HERE))
from ab import client_limits_off  # noqa: E402
from soak import FlowServer, call, onboarded_session  # noqa: E402

STORES = os.environ.get("STORES", "memory sqlite").split()
PAGES = [int(size) for size in os.environ.get("PAGES", "10 1000").split()]
DURATION = int(os.environ.get("DURATION", "6"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
SESSIONS = 8
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def grown_session(port, pages):
    """A session whose wishlist stack holds `pages` pages (movies 1 to 12 over the wishlist):
    `id csrf from top`, `from` the top page's node."""
    session, csrf, _ = onboarded_session(port)
    bearer = {"Authorization": f"Bearer {session}", "Content-Type": "application/json"}
    for n in range(pages - 1):
        body = json.dumps({"step": {"name": "movieIsPicked", "params": {"withId": n % 12 + 1}}}).encode()
        status, _, answer = call(port, "POST", "/api/v1/session/steps", bearer, body)
        assert status == 200, (status, answer[:300])
    _, _, state = call(port, "GET", "/api/v1/session", bearer)
    top = json.loads(state)["top"]
    return f"{session} {csrf} {top['node']} {top['url']}\n"


def measure(binary, store, pages, kind, work):
    server = FlowServer(binary, store, extra=[*client_limits_off(binary), "--max-session-nodes", "5000",
                                              "--max-stack-depth", "5000", "--max-session-state", "10000000"])
    try:
        server.wait_until_explored()
        sessions = work / f"sessions-{server.port}.txt"
        sessions.write_text("".join(grown_session(server.port, pages) for _ in range(SESSIONS)))
        target = ["-s", str(HERE / "wrk" / "steps_at_top.lua"), f"http://127.0.0.1:{server.port}/", "--",
                  str(sessions), kind]
        subprocess.run(["wrk", "-t2", "-c16", "-d2s", *target], capture_output=True, check=True)
        before, started = cpu_seconds(server.process.pid), time.monotonic()
        output = subprocess.run(["wrk", "-t2", "-c16", f"-d{DURATION}s", *target], capture_output=True,
                                text=True, check=True).stdout
        used = cpu_seconds(server.process.pid) - before
        elapsed = time.monotonic() - started
        # Every answer a success or a redirect: a refused or failed step would measure nothing.
        assert "Non-2xx or 3xx responses" not in output, output
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
        return rate, used / (rate * elapsed) * 1e6
    finally:
        server.kill()


def main():
    binary = sys.argv[1]
    work = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-step-cost-"))
    print(f"| store | kind | pages | req/s | server µs/req |\n| --- | --- | --- | --- | --- |")
    for store in STORES:
        location = "memory" if store == "memory" else f"sqlite:{work}/{{}}.sqlite"
        for kind in ("form", "api"):
            rounds = {pages: [] for pages in PAGES}
            for round in range(ROUNDS):
                for pages in PAGES if round % 2 == 0 else reversed(PAGES):
                    rounds[pages].append(measure(binary, location.format(f"{kind}-{pages}-{round}"), pages, kind, work))
            costs = {}
            for pages in PAGES:
                rate = statistics.median(rate for rate, _ in rounds[pages])
                costs[pages] = statistics.median(micros for _, micros in rounds[pages])
                print(f"| {store} | {kind} | {pages} | {rate:,.0f} | {costs[pages]:.0f} |", flush=True)
            print(f"| {store} | {kind} | {max(PAGES)} / {min(PAGES)} | | {costs[max(PAGES)] / costs[min(PAGES)]:.2f}× |",
                  flush=True)


if __name__ == "__main__":
    main()
