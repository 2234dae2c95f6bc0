#!/usr/bin/env python3
"""What a request costs the server, from /proc: `python3 Benchmarks/cpu_per_request.py BINARY [STORE ...]`.

For each store (default "memory sqlite postgres"; PostgreSQL is a throwaway cluster with its
default, durable settings), each scenario of `make bench` that reads or changes a session (a page:
`GET /movies/1` of one onboarded session; steps: Benchmarks/wrk/steps.lua, 16 sessions) and each
server thread count of THREADS (default "1 2"), runs wrk -t2 over CONNECTIONS connections (below)
for a 3 s warm-up and an 8 s measurement and prints the requests per second, the p99, and the CPU time each process
(flowserver, postgres, wrk, the kernel's workers) spent a request, with the machine's idle share;
then a table of the server's CPU a request, with the ratios issue 42 sets targets for: PostgreSQL /
memory (a page at most 2x, a step at most 1.5x) and 2 threads / 1 thread (within 1.15x). On two
shared cores a throughput ratio flatters whoever costs wrk the most; CPU a request does not.

With CONNECTIONS=N (default 64) wrk keeps N connections open: issue 42's targets are set at 64; at
256 the server's threads more often find work waiting while requests wait for the database (see
Benchmarks/README.md, session 32).

With ROUNDS=N (default 1) every measurement is made N times, the stores taking turns within each
round (their order reversed every other round) so that the host's slower minutes fall on all of
them alike; the table gives medians, and each ratio is the median of the rounds' ratios.
"""
import contextlib
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests" / "soak"))
sys.path.insert(0, str(HERE))
from ab import client_limits_off, page_target, step_target  # noqa: E402
from cluster import PostgresCluster  # noqa: E402
from soak import FlowServer  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
CONNECTIONS = int(os.environ.get("CONNECTIONS", "64"))


def cpu_seconds(pid):
    """Seconds of CPU process `pid` has used so far, all its threads."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def cpu_by_process():
    """Seconds of CPU each command name has used so far (processes alive now), and the idle time."""
    used = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            seconds = cpu_seconds(pid)
            name = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            continue
        name = "kernel workers" if name.startswith("kworker") else name
        used[name] = used.get(name, 0) + seconds
    return used, int(open("/proc/stat").readline().split()[4]) / TICK


def measure(binary, location, label, scenario="step", threads=None):
    """Runs `scenario` ("page" or "step") against `binary` on the store at `location` (with
    `--threads threads` when given), prints what each process spent a request, and answers the
    server's µs a request."""
    extra = client_limits_off(binary) + (["--threads", str(threads)] if threads else [])
    server = FlowServer(binary, location, extra=extra)
    try:
        server.wait_until_explored()
        work = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-cpu-"))
        target = page_target(server) if scenario == "page" else step_target(server, work)
        subprocess.run(["wrk", "-t2", f"-c{CONNECTIONS}", "-d3s", *target], capture_output=True)
        before, idle_before = cpu_by_process()
        started = time.monotonic()
        wrk = subprocess.Popen(["wrk", "-t2", f"-c{CONNECTIONS}", "-d8s", "--latency", *target], stdout=subprocess.PIPE, text=True)
        time.sleep(7.5)  # wrk's own time is read while it still runs
        after, idle_after = cpu_by_process()
        elapsed = time.monotonic() - started
        output = wrk.communicate()[0]
    finally:
        server.process.kill()
        server.process.wait()
    rate = float(next(line for line in output.splitlines() if "Requests/sec" in line).split()[1])
    p99 = next((line.split()[1] for line in output.splitlines() if line.strip().startswith("99%")), "?")
    name = pathlib.Path(binary).name[:15]
    cores = {key: (after[key] - before.get(key, 0)) / elapsed for key in after}
    busy = sorted(((key, value) for key, value in cores.items() if value > 0.02), key=lambda item: -item[1])
    shown = ", ".join(f"{'flowserver' if key == name else key} {value:.2f} ({value / rate * 1e6:.0f} µs)"
                      for key, value in busy)
    print(f"{label}: {rate:,.0f} req/s, p99 {p99}; cores (µs a request): {shown}; "
          f"idle {(idle_after - idle_before) / elapsed:.2f}", flush=True)
    return cores.get(name, 0) / rate * 1e6


def main():
    binary = sys.argv[1]
    stores = sys.argv[2:] or ["memory", "sqlite", "postgres"]
    thread_counts = [int(count) for count in os.environ.get("THREADS", "1 2").split()]
    rounds = int(os.environ.get("ROUNDS", "1"))
    cost = {}
    with contextlib.ExitStack() as stack:
        locations = {}
        for store in stores:
            if store == "postgres":
                locations[store] = stack.enter_context(PostgresCluster(durable=True)).url
            elif store == "sqlite":
                locations[store] = f"sqlite:{stack.enter_context(tempfile.TemporaryDirectory())}/sessions.sqlite"
            else:
                locations[store] = store
        for number in range(rounds):
            order = stores if number % 2 == 0 else stores[::-1]
            for scenario in ["page", "step"]:
                for threads in thread_counts:
                    for store in order:
                        label = f"{store}, {scenario}, {threads} thread{'s' if threads > 1 else ''}"
                        if rounds > 1:
                            label += f", round {number + 1}"
                        cost.setdefault((store, scenario, threads), []).append(
                            measure(binary, locations[store], label, scenario, threads))
    median = {key: statistics.median(figures) for key, figures in cost.items()}

    def ratio(numerator, denominator):
        """The median of the rounds' ratios of two measurements."""
        return statistics.median(a / b for a, b in zip(cost[numerator], cost[denominator]))

    print("\n| store | scenario | " + " | ".join(f"µs a request, {count} thread{'s' if count > 1 else ''}"
                                                 for count in thread_counts) + " | last / first |")
    print("| --- | --- | " + " | ".join("---" for _ in thread_counts) + " | --- |")
    for store in stores:
        for scenario in ["page", "step"]:
            figures = [median[store, scenario, count] for count in thread_counts]
            print(f"| {store} | {scenario} | " + " | ".join(f"{figure:.0f}" for figure in figures)
                  + f" | {ratio((store, scenario, thread_counts[-1]), (store, scenario, thread_counts[0])):.2f} |")
    if "memory" in stores:
        for store in (store for store in stores if store != "memory"):
            ratios = ", ".join(
                f"{scenario} {ratio((store, scenario, count), ('memory', scenario, count)):.2f}"
                for scenario in ["page", "step"] for count in thread_counts[-1:])
            print(f"\n{store} / memory, server CPU a request at {thread_counts[-1]} threads"
                  f"{f' (medians of {rounds} rounds)' if rounds > 1 else ''}: {ratios}")


if __name__ == "__main__":
    main()
