#!/usr/bin/env python3
"""Where the CPU of the steps scenario goes: `python3 Benchmarks/cpu_per_request.py BINARY [STORE ...]`.

For each store (default "memory postgres"; PostgreSQL is a throwaway cluster with its default,
durable settings), runs the steps scenario of `make bench` (wrk -t2 -c64, Benchmarks/wrk/steps.lua,
16 sessions) for a 3 s warm-up and an 8 s measurement, and prints the requests per second and the
CPU time each process (flowserver, postgres, wrk, the kernel's workers) spent a request, from
/proc, with the machine's idle share. On a machine where the database shares the cores with the
server and the load, this bounds what the server may spend a request at a given rate.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests" / "soak"))
sys.path.insert(0, str(HERE))
from ab import start, step_target  # noqa: E402
from cluster import PostgresCluster  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_by_process():
    """Seconds of CPU each command name has used so far (processes alive now), and the idle time."""
    used = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            name = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            continue
        name = "kernel workers" if name.startswith("kworker") else name
        used[name] = used.get(name, 0) + (int(fields[11]) + int(fields[12])) / TICK
    return used, int(open("/proc/stat").readline().split()[4]) / TICK


def measure(binary, location, label):
    server = start(binary, location)
    try:
        target = step_target(server, pathlib.Path(tempfile.mkdtemp(prefix="flowserver-cpu-")))
        subprocess.run(["wrk", "-t2", "-c64", "-d3s", *target], capture_output=True)
        before, idle_before = cpu_by_process()
        started = time.monotonic()
        wrk = subprocess.Popen(["wrk", "-t2", "-c64", "-d8s", *target], stdout=subprocess.PIPE, text=True)
        time.sleep(7.5)  # wrk's own time is read while it still runs
        after, idle_after = cpu_by_process()
        elapsed = time.monotonic() - started
        output = wrk.communicate()[0]
    finally:
        server.kill()
    rate = float(next(line for line in output.splitlines() if "Requests/sec" in line).split()[1])
    name = pathlib.Path(binary).name[:15]
    cores = {key: (after[key] - before.get(key, 0)) / elapsed for key in after}
    busy = sorted(((key, value) for key, value in cores.items() if value > 0.02), key=lambda item: -item[1])
    shown = ", ".join(f"{'flowserver' if key == name else key} {value:.2f} ({value / rate * 1e6:.0f} µs)"
                      for key, value in busy)
    print(f"{label}: {rate:,.0f} req/s; cores (µs a request): {shown}; idle {(idle_after - idle_before) / elapsed:.2f}")


def main():
    binary = sys.argv[1]
    for store in sys.argv[2:] or ["memory", "postgres"]:
        if store == "postgres":
            with PostgresCluster(durable=True) as cluster:
                measure(binary, cluster.url, store)
        else:
            measure(binary, store, store)


if __name__ == "__main__":
    main()
