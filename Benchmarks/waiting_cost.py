#!/usr/bin/env python3
"""What waiting for a store costs the server, with no store work: `python3 Benchmarks/waiting_cost.py BINARY [ROUNDS]`.

BINARY is a release build with `Benchmarks/experiments/waiting-memory-store.patch` applied
(`git apply` it, `swift build -c release --product flowserver`, copy the binary, `git checkout
Sources` and delete `Sources/MicroHTTP/Server/DaemonExecutor.swift`). The patch makes the memory
store's commit suspend and resume later, the store doing no more work than before:
`FLOWSERVER_WAIT=other` resumes it on another thread (a Dispatch queue the requests prefer, as
they prefer PostgreSQL's event loops); `FLOWSERVER_WAIT=same` on the server thread that holds the
request, from its daemon loop (the patch brings back session 27's `DaemonExecutor`, and gives it
timers); either after `FLOWSERVER_WAIT_US` microseconds.

Runs `steps.lua` (16 sessions, 64 connections, 2 server threads) under `cpu_per_request.measure`
for each variant in turn, ROUNDS times (default 3), and prints each run's line and the median
server µs a step of each variant.
"""
import contextlib
import io
import os
import statistics
import sys

import cpu_per_request

VARIANTS = [
    ("answered on the server's thread, no wait", None, None),
    ("answered at once, on another thread", "other", "0"),
    ("answered 3 ms later, on another thread", "other", "3000"),
    ("answered at the loop's next turn, on the request's thread", "same", "0"),
    ("answered 3 ms later, on the request's thread", "same", "3000"),
]


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    costs = {name: [] for name, _, _ in VARIANTS}
    for round_number in range(rounds):
        shift = round_number % len(VARIANTS)
        for name, mode, wait in VARIANTS[shift:] + VARIANTS[:shift]:
            os.environ.pop("FLOWSERVER_WAIT", None)
            if mode is not None:
                os.environ["FLOWSERVER_WAIT"] = mode
                os.environ["FLOWSERVER_WAIT_US"] = wait
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                costs[name].append(cpu_per_request.measure(binary, "memory", name, "step", 2))
            print(next(line for line in printed.getvalue().splitlines() if "req/s" in line), flush=True)
    os.environ.pop("FLOWSERVER_WAIT", None)
    print()
    for name, values in costs.items():
        print(f"{name}: {statistics.median(values):.1f} µs a step (runs: {', '.join(f'{v:.1f}' for v in values)})")


if __name__ == "__main__":
    main()
