#!/usr/bin/env python3
"""PostgreSQL / memory with the database on a core of its own: `python3 Benchmarks/pinned_ratio.py BINARY`.

Issue 42's targets for throughput hold with the database off the server's cores. On two cores
this approximates it with `taskset`: the server (`--threads 1`), started on core 0, alone there; PostgreSQL (a
throwaway cluster with its default, durable settings) and wrk on core 1. The memory store runs
the same way, its core 1 holding wrk alone. For pages (`GET /movies/1` of one onboarded session)
and steps (Benchmarks/wrk/steps.lua, 16 sessions): wrk -t1 -c64 (see CONNECTIONS), 3 rounds of 5 s, memory and
PostgreSQL alternately; prints each round's req/s, p99 and the server's CPU a request (from
/proc, over wrk's run), and the median ratios PostgreSQL / memory. Targets: pages >= 0.5, steps
>= 0.4, p99 under 20 ms at 64 connections; the CPU ratios are issue 42's (a page at most 2x, a step
at most 1.5x) with the database off the server's core. Then each store's mean wait, which with the
server's core saturated is the connections / the rate and so the host's speed, and its p99 as a multiple of that
mean, which is how unevenly the store's waits spread (Benchmarks/README.md, session 46).

With CONNECTIONS=N (default 64) wrk keeps N connections open. The issue set its targets at 64
connections over 4 server cores; here the server has one, so CONNECTIONS=16 keeps as many
connections a server core (Benchmarks/README.md, session 47).
"""
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests" / "soak"))
sys.path.insert(0, str(HERE))
from ab import client_limits_off, page_target, step_target  # noqa: E402
from cluster import PostgresCluster  # noqa: E402
from cpu_per_request import cpu_seconds  # noqa: E402
from soak import FlowServer  # noqa: E402

ROUNDS = 3
CONNECTIONS = int(os.environ.get("CONNECTIONS", "64"))


#: How the server is started on core 0. Started there, not moved there: libdispatch sizes Swift's
#: cooperative pool to the cores a process may run on when it starts, so a server moved to one core
#: after its start runs two pool threads there that take turns in each other's slices, which a
#: server on cores of its own would not (session 39: see Benchmarks/README.md, "Started on its core").
SERVER_CORE = ["taskset", "-c", "0"]


def pin(pid, core):
    """Moves process `pid` and all its threads to `core` (threads made later inherit it)."""
    subprocess.run(["taskset", "-a", "-p", "-c", str(core), str(pid)], check=True, capture_output=True)


def postmaster_pid(cluster):
    return int((cluster.directory / "data" / "postmaster.pid").read_text().split()[0])


def milliseconds(match):
    """A wrk duration (`12.3ms`, `870.00us`, `1.2s`) in ms."""
    return float(match.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[match.group(2)]


def run_wrk(target, server_pid):
    """(req/s, p99 ms, the server's µs of CPU a request, mean latency ms) of wrk on core 1."""
    before = cpu_seconds(server_pid)
    output = subprocess.run(["taskset", "-c", "1", "wrk", "-t1", f"-c{CONNECTIONS}", "-d5s", "--latency", *target],
                            capture_output=True, text=True).stdout
    used = cpu_seconds(server_pid) - before  # wrk's start and end around its 5 s cost the server nothing
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    return (float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
            milliseconds(re.search(r"^\s+99%\s+([\d.]+)(\w+)", output, re.M)), used / requests * 1e6,
            milliseconds(re.search(r"^\s+Latency\s+([\d.]+)(\w+)", output, re.M)))


def main():
    binary = sys.argv[1]
    work = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-pinned-"))
    with PostgresCluster(durable=True) as cluster:
        pin(postmaster_pid(cluster), 1)  # its backends, forked later, inherit the core
        servers = {}
        try:
            for store, location in [("memory", "memory"), ("postgres", cluster.url)]:
                server = FlowServer(binary, location, extra=client_limits_off(binary) + ["--threads", "1"],
                                    launcher=SERVER_CORE)
                server.wait_until_explored()
                servers[store] = server
            targets = {(store, scenario): page_target(server) if scenario == "page" else step_target(server, work)
                       for store, server in servers.items() for scenario in ["page", "step"]}
            results = {key: [] for key in targets}
            for (store, _), target in targets.items():  # a warm-up each
                run_wrk(target, servers[store].process.pid)
            for _ in range(ROUNDS):
                for (store, scenario), target in targets.items():
                    results[store, scenario].append(run_wrk(target, servers[store].process.pid))
        finally:
            for server in servers.values():
                server.process.kill()
                server.process.wait()
    print("| store | scenario | req/s, each round | p99 ms, each round | mean ms, each round | server µs a request, each round |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (store, scenario), figures in results.items():
        print(f"| {store} | {scenario} | {', '.join(f'{rate:,.0f}' for rate, _, _, _ in figures)} | "
              f"{', '.join(f'{p99:.1f}' for _, p99, _, _ in figures)} | {', '.join(f'{mean:.1f}' for *_, mean in figures)} | "
              f"{', '.join(f'{cpu:.1f}' for _, _, cpu, _ in figures)} |")
    for scenario, target in [("page", 0.5), ("step", 0.4)]:
        pairs = list(zip(results["postgres", scenario], results["memory", scenario]))
        ratios = [pg[0] / memory[0] for pg, memory in pairs]
        costs = [pg[2] / memory[2] for pg, memory in pairs]
        print(f"\n{scenario}s, PostgreSQL / memory with the database on a core of its own: "
              f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}; target >= {target}); "
              f"PostgreSQL p99 {max(p99 for _, p99, _, _ in results['postgres', scenario]):.1f} ms (target < 20 ms); "
              f"server CPU a request, PostgreSQL / memory {statistics.median(costs):.2f} "
              f"({min(costs):.2f}-{max(costs):.2f})")
        # With the server's core saturated, the mean wait is the connections / the rate (Little's law): the host's
        # speed. The p99 is that mean times how unevenly the waits spread, which is the store's doing.
        for store in ["memory", "postgres"]:
            spreads = [p99 / mean for _, p99, _, mean in results[store, scenario]]
            print(f"  {store}: mean wait {statistics.median(m for *_, m in results[store, scenario]):.1f} ms, "
                  f"p99 / mean {statistics.median(spreads):.2f} ({min(spreads):.2f}-{max(spreads):.2f})")


if __name__ == "__main__":
    main()
