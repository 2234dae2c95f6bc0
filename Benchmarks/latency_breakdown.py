#!/usr/bin/env python3
"""Where a request's time goes while it waits: `python3 Benchmarks/latency_breakdown.py BINARY [pinned|shared] [step|page] [ROUNDS]`.

BINARY is a release build with `Benchmarks/experiments/latency-probe.patch` applied (`git apply`
it, `swift build -c release --product flowserver`, copy the binary, then `git checkout Sources
Package.swift` and delete `Sources/ThreadLocal/Probe.swift`). The patch times, in the server,
the intervals a request of a PostgreSQL store spends waiting, and writes their sums and counts
every second to FLOWSERVER_PROBE_LOG:

- responder: from libmicrohttpd's thread handing the request to the responder's task until the
  responder answers (only requests that took the async path);
- handback: from that answer until libmicrohttpd's thread queues it (the suspended connection
  resumed, its thread woken);
- lockWait: a change waiting for its session's lock (held by a change waiting for its commit);
- commitWait, commitQuery, commitResumeLag: a commit from asking until answered; the batch's
  query from sent until its sender resumes; a waiting commit from answered until its task runs;
- stampWait, stampQuery, stampResumeLag: the same for a page's stamp;
- sendLag: a question told to send the next batch, until its task runs;
- loopHop, onLoop, loopResumeLag: a query from its task to the event loop, on the loop until the
  database's answer, and from there until the task runs again.

A throwaway durable PostgreSQL cluster, the scenario of `make bench` (steps: steps.lua, 16
sessions; page: `GET /movies/1`), wrk -c64 for a warm-up and ROUNDS (default 2) runs of 5 s.
`pinned` is `pinned_ratio.py`'s arrangement (server `--threads 1` started on core 0, PostgreSQL
and wrk -t1 on core 1); `shared` the two cores for everyone (`--threads 2`, wrk -t2). Prints each run's rate,
CPU a request (server, PostgreSQL) and latency percentiles, then each interval: how often a
request has it, its mean, and its share of a request.
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests" / "soak"))
sys.path.insert(0, str(HERE))
from ab import client_limits_off, page_target, step_target  # noqa: E402
from cluster import PostgresCluster  # noqa: E402
from cpu_per_request import cpu_seconds  # noqa: E402
from pinned_ratio import SERVER_CORE, pin, postmaster_pid  # noqa: E402
from soak import FlowServer  # noqa: E402


def probe_totals(log):
    """The probe's last line: {interval: (nanoseconds, count)}, after its next write."""
    time.sleep(1.1)
    lines = log.read_text().splitlines() if log.exists() else []
    return {name: tuple(map(int, value.split(","))) for name, value in re.findall(r"(\w+)=([\d,]+)", lines[-1])} \
        if lines else {}


def postgres_cpu():
    """Seconds of CPU every process named postgres used so far."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm").read().strip() == "postgres":
                total += cpu_seconds(pid)
        except OSError:
            pass
    return total


def main():
    binary = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "pinned"
    scenario = sys.argv[3] if len(sys.argv) > 3 else "step"
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    work = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-latency-"))
    log = work / "probe.log"
    os.environ["FLOWSERVER_PROBE_LOG"] = str(log)
    with PostgresCluster(durable=True) as cluster:
        server = FlowServer(binary, cluster.url,
                            extra=client_limits_off(binary) + ["--threads", "1" if mode == "pinned" else "2"],
                            launcher=SERVER_CORE if mode == "pinned" else ())
        try:
            if mode == "pinned":
                pin(postmaster_pid(cluster), 1)
            server.wait_until_explored()
            target = step_target(server, work) if scenario == "step" else page_target(server)
            wrk = (["taskset", "-c", "1", "wrk", "-t1"] if mode == "pinned" else ["wrk", "-t2"]) + \
                ["-c64", "-d5s", "--latency", *target]
            subprocess.run(wrk, capture_output=True, check=True)  # warm-up
            for run in range(rounds):
                before, server_before, postgres_before = probe_totals(log), cpu_seconds(server.process.pid), postgres_cpu()
                output = subprocess.run(wrk, capture_output=True, text=True, check=True).stdout
                server_used = cpu_seconds(server.process.pid) - server_before
                postgres_used = postgres_cpu() - postgres_before
                after = probe_totals(log)
                requests = int(re.search(r"(\d+) requests in", output).group(1))
                latency = ", ".join(f"p{p} {v}" for p, v in re.findall(r"^\s+(50|90|99)%\s+(\S+)", output, re.M))
                print(f"run {run + 1}: {requests / 5:,.0f} req/s; server {server_used / requests * 1e6:.1f} µs, "
                      f"PostgreSQL {postgres_used / requests * 1e6:.1f} µs a request; {latency}")
                for name, (nanoseconds, count) in after.items():
                    spent, times = nanoseconds - before.get(name, (0, 0))[0], count - before.get(name, (0, 0))[1]
                    if times:
                        print(f"  {name:16} {times / requests:6.3f} a request, mean {spent / times / 1000:8.1f} µs, "
                              f"{spent / requests / 1000:8.1f} µs a request")
        finally:
            server.process.kill()
            server.process.wait()


if __name__ == "__main__":
    main()
