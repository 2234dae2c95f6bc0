#!/usr/bin/env python3
"""A/B of two flowserver builds on the page and step scenarios of `make bench`, measured
alternately so both see the same machine: `python3 Benchmarks/ab.py OLD_BINARY NEW_BINARY`.

Scenarios (wrk -t2 at CONNECTIONS, default 64): `GET /movies/1` of an onboarded session and steps
(form POST /_step alternating with a Back visit, 16 sessions, Benchmarks/wrk/steps.lua) on each of
STORES (default "memory sqlite"; "postgres" adds a throwaway cluster with PostgreSQL's default,
durable settings). ROUNDS (default 5) rounds of DURATION seconds (default 5); each round measures
A then B, or B then A on odd rounds. Prints the median requests per second and p99 of each and the
median of the rounds' B/A ratios with their spread.
"""
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "Tests" / "soak"))
from soak import FlowServer, onboarded_session, call  # noqa: E402
from cluster import PostgresCluster  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "5"))
DURATION = int(os.environ.get("DURATION", "5"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "64"))
STORES = os.environ.get("STORES", "memory sqlite").split()


def client_limits_off(binary):
    """The flags that lift the per-client limits, those of them `binary` has."""
    help = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    flags = [["--max-connections-per-client", "0"], ["--new-sessions-per-minute", "0"]]
    return [part for flag in flags if flag[0] in help for part in flag]


def start(binary, store):
    server = FlowServer(binary, store, extra=client_limits_off(binary))
    server.wait_until_explored()
    return server


def page_target(server):
    session, _, _ = onboarded_session(server.port)
    status, _, _ = call(server.port, "POST", "/api/v1/session/steps",
                        {"Authorization": f"Bearer {session}", "Content-Type": "application/json"},
                        b'{"step":{"name":"movieIsPicked","params":{"withId":1}}}')
    assert status == 200, status
    return ["-H", f"Cookie: flowserver_session={session}", f"http://127.0.0.1:{server.port}/movies/1"]


def step_target(server, work):
    sessions = work / f"sessions-{server.port}.txt"
    sessions.write_text("".join(f"{id} {csrf} {node}\n" for id, csrf, node in (onboarded_session(server.port) for _ in range(16))))
    return ["-s", str(HERE / "wrk" / "steps.lua"), f"http://127.0.0.1:{server.port}/", "--", str(sessions)]


def measure(target):
    """(requests/s, p99 in ms) of wrk on `target`."""
    output = subprocess.run(["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{DURATION}s", "--latency", *target],
                            capture_output=True, text=True).stdout
    p99 = re.search(r"^\s+99%\s+([\d.]+)(\w+)", output, re.M)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)), \
        float(p99.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]


def main():
    binaries = {"A": sys.argv[1], "B": sys.argv[2]}
    work = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-ab-"))
    servers, scenarios, clusters = [], {}, []
    try:
        for name, binary in binaries.items():
            for store in STORES:
                if store == "postgres":
                    clusters.append(PostgresCluster(durable=True).__enter__())
                    page, steps = start(binary, clusters[-1].url), start(binary, clusters[-1].url)
                else:
                    location = "memory" if store == "memory" else f"sqlite:{work}/{name}-{store}.sqlite"
                    page = start(binary, location)
                    steps = start(binary, location.replace(".sqlite", "-steps.sqlite"))
                servers += [page, steps]
                scenarios.setdefault(f"page, {store}", {})[name] = page_target(page)
                scenarios.setdefault(f"steps, {store}", {})[name] = step_target(steps, work)
        figures = {scenario: {"A": [], "B": []} for scenario in scenarios}
        for round_number in range(ROUNDS):
            order = ["A", "B"] if round_number % 2 == 0 else ["B", "A"]
            for scenario, targets in scenarios.items():
                for name in order:
                    figures[scenario][name].append(measure(targets[name]))
            print(f"round {round_number + 1} of {ROUNDS} done", flush=True)
        print(f"\nA = {binaries['A']}\nB = {binaries['B']}\nwrk -t2 -c{CONNECTIONS} -d{DURATION}s, {ROUNDS} rounds\n")
        print("| scenario | A req/s | A p99 | B req/s | B p99 | B/A (min–max) |\n| --- | --- | --- | --- | --- | --- |")
        for scenario, runs in figures.items():
            ratios = [b[0] / a[0] for a, b in zip(runs["A"], runs["B"])]
            a_rps, a_p99 = (statistics.median(figure[i] for figure in runs["A"]) for i in (0, 1))
            b_rps, b_p99 = (statistics.median(figure[i] for figure in runs["B"]) for i in (0, 1))
            print(f"| {scenario} | {a_rps:,.0f} | {a_p99:.1f} ms | {b_rps:,.0f} | {b_p99:.1f} ms | "
                  f"{statistics.median(ratios):.3f} ({min(ratios):.3f}–{max(ratios):.3f}) |")
    finally:
        for server in servers:
            server.kill()
        for cluster in clusters:
            cluster.__exit__(None, None, None)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
