#!/usr/bin/env python3
"""Soak tests: a flowserver process per store under mixed traffic from wrk (mix.lua).

For each store (memory, SQLite, PostgreSQL on a throwaway cluster) it starts `flowserver`,
prepares onboarded sessions through the JSON API, then runs the mix `--runs` times for
`--seconds` each with `--connections` connections while a separate client probes `/healthz`.
It asserts what real use needs: every request answered (no timeouts, no read or connect
errors), no 5xx, `/healthz` answering within a second throughout, RSS after the last run no more
than 10% above after the first (after a warm-up run; for the memory store, which holds all data,
growth no faster in the last run than in the first), and SIGTERM ending the process within 10 s with status 0.

`make test` runs it briefly (a warm-up and two runs of 8 s per store); `make soak` runs it for 10
minutes per store and prints the figures. Exit status 1 when a check fails.
"""
import argparse
import http.client
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cluster import PostgresCluster  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
MIX = pathlib.Path(__file__).resolve().parent / "mix.lua"


class Failure(Exception):
    """A check that did not hold, with what was seen."""


class FlowServer:
    """A `flowserver` process on a free port of 127.0.0.1."""

    def __init__(self, binary, store, extra=()):
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--store", store, "--templates", str(ROOT / "Templates"),
             "--public", str(ROOT / "Public"), "--log-level", "warning", *extra],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on http://"):
            raise Failure(f"flowserver did not start: {line!r} {self.errors()}")
        self.port = int(line.strip().rsplit(":", 1)[1])

    def errors(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def rss_megabytes(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise Failure("no VmRSS for flowserver")

    def stop(self, seconds=10):
        """SIGTERM, then the seconds it took and the exit status (None: still running, killed)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return time.monotonic() - started, None
        return time.monotonic() - started, status

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def call(port, method, path, headers=None, body=None, timeout=10):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def onboarded_session(port):
    """A new session, onboarded through the API: its id, CSRF token and wishlist page node."""
    status, _, body = call(port, "POST", "/api/v1/sessions", {"Content-Type": "application/json"}, b"{}")
    if status != 201:
        raise Failure(f"creating a session answered {status}: {body[:200]!r}")
    session = json.loads(body)["session"]
    bearer = {"Authorization": f"Bearer {session}", "Content-Type": "application/json"}
    for step in ({"name": "userIsLoggedIn", "params": {"name": "Ada"}}, {"name": "apiKeyIsFilledIn", "params": {"apiKey": "k"}}):
        status, _, body = call(port, "POST", "/api/v1/session/steps", bearer, json.dumps({"step": step}).encode())
        if status != 200:
            raise Failure(f"onboarding answered {status}: {body[:200]!r}")
    top = json.loads(body)["state"]["top"]
    if top["url"] != "/wishlist":
        raise Failure(f"onboarding ended on {top['url']}")
    status, _, page = call(port, "GET", "/wishlist", {"Cookie": f"flowserver_session={session}"})
    match = re.search(rb'name="_csrf" value="([0-9a-f]+)"', page)
    if status != 200 or not match:
        raise Failure(f"the wishlist answered {status} without a CSRF token")
    return session, match.group(1).decode(), top["node"]


class HealthProbe(threading.Thread):
    """Asks `/healthz` every 100 ms on a connection of its own; keeps the slowest answer and
    every failure (an answer other than 200, or none within 5 s)."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.slowest, self.failures, self.probes = port, 0.0, [], 0
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.wait(0.1):
            started = time.monotonic()
            try:
                status, _, _ = call(self.port, "GET", "/healthz", timeout=5)
                if status != 200:
                    self.failures.append(f"status {status}")
            except OSError as error:
                self.failures.append(f"{type(error).__name__}: {error}")
            self.slowest = max(self.slowest, time.monotonic() - started)
            self.probes += 1

    def stop(self):
        self.stopping.set()
        self.join()


def run_mix(port, sessions_file, seconds, connections):
    output = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "--latency", "-s", str(MIX),
         f"http://127.0.0.1:{port}", "--", sessions_file],
        capture_output=True, text=True, timeout=seconds + 60)
    line = next((line for line in output.stdout.splitlines() if line.startswith("soak-result ")), None)
    if line is None:
        raise Failure(f"wrk printed no result: {output.stdout[-1000:]} {output.stderr[-1000:]}")
    return json.loads(line[len("soak-result "):])


def soak(binary, name, store, args):
    """Soaks one store; answers its figures, raises Failure when a check does not hold."""
    # wrk's connections all come from 127.0.0.1: no per-client limit.
    server = FlowServer(binary, store, extra=["--max-connections-per-client", "0"])
    try:
        sessions = [onboarded_session(server.port) for _ in range(args.sessions)]
        with tempfile.NamedTemporaryFile("w", suffix=".sessions", delete=False) as file:
            file.writelines(f"{id} {csrf} {node}\n" for id, csrf, node in sessions)
        probe = HealthProbe(server.port)
        probe.start()
        runs, rss = [], [server.rss_megabytes()]
        try:
            # A warm-up run first: the caches of decoded trees and database pages fill then.
            for seconds in [args.warmup] + [args.seconds] * args.runs:
                runs.append(run_mix(server.port, file.name, seconds, args.connections))
                rss.append(server.rss_megabytes())
        finally:
            probe.stop()
            os.unlink(file.name)
        stop_seconds, status = server.stop()
        figures = {
            "store": name, "requests": sum(r["requests"] for r in runs),
            "perSecond": round(sum(r["requests"] for r in runs) / sum(r["seconds"] for r in runs)),
            "p99ms": max(r["p99ms"] for r in runs), "serverErrors": sum(r["serverErrors"] for r in runs),
            "rssStartMB": round(rss[0], 1), "rssAfterFirstMB": round(rss[2], 1), "rssEndMB": round(rss[-1], 1),
            "rssMB": [round(value, 1) for value in rss],
            "healthProbes": probe.probes, "healthSlowestS": round(probe.slowest, 3), "stopSeconds": round(stop_seconds, 2),
        }
        problems = []
        for index, run in enumerate(runs):
            lost = run["timeouts"] + run["readErrors"] + run["connectErrors"] + run["writeErrors"]
            if lost:
                problems.append(f"run {index}: {lost} requests unanswered ({run})")
            if run["serverErrors"]:
                problems.append(f"run {index}: {run['serverErrors']} answers were 5xx")
            if run["silentSeconds"] > 2:
                problems.append(f"run {index}: a client heard nothing for the last {run['silentSeconds']} s")
            if run["requests"] == 0:
                problems.append(f"run {index}: no request was answered")
        if probe.failures:
            problems.append(f"/healthz failed {len(probe.failures)} times: {probe.failures[:3]}")
        if probe.slowest > 1.0:
            problems.append(f"/healthz took {probe.slowest:.2f} s once (limit 1 s)")
        # rss: at the start, after the warm-up, after each measured run.
        if name == "memory":
            # The memory store holds every session and history entry, so its RSS grows with what
            # the mix stores; it must grow no faster in the last run than in the first.
            first, last = rss[2] - rss[1], rss[-1] - rss[-2]
            if len(rss) > 3 and last > max(first, 1.0) * 1.10:
                problems.append(f"RSS grew by {last:.1f} MB in the last run, {first:.1f} MB in the first")
        elif len(rss) > 3 and rss[-1] > rss[2] * 1.10:
            problems.append(f"RSS grew from {rss[2]:.1f} MB after the first run to {rss[-1]:.1f} MB after the last")
        if status is None:
            problems.append("SIGTERM did not stop flowserver within 10 s (killed)")
        elif status != 0:
            problems.append(f"flowserver exited with status {status} after SIGTERM")
        if problems:
            raise Failure(f"{name}: " + "; ".join(problems) + f"\nfigures: {figures}\nstderr: {server.errors()}")
        return figures
    finally:
        server.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.environ.get("FLOWSERVER_BIN") or str(ROOT / ".build" / "debug" / "flowserver"))
    parser.add_argument("--stores", default="memory,sqlite,postgres")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--runs", type=int, default=2, help="measured runs, after a warm-up run")
    parser.add_argument("--warmup", type=int, default=8, help="seconds of the warm-up run")
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--sessions", type=int, default=64)
    args = parser.parse_args()
    results, failures = [], []
    for name in args.stores.split(","):
        print(f"soak: {name}, a warm-up of {args.warmup} s, {args.runs} runs of {args.seconds} s at {args.connections} connections", flush=True)
        try:
            if name == "postgres":
                with PostgresCluster() as cluster:
                    results.append(soak(args.binary, name, cluster.url, args))
            else:
                with tempfile.TemporaryDirectory() as directory:
                    store = "memory" if name == "memory" else f"sqlite:{directory}/soak.sqlite"
                    results.append(soak(args.binary, name, store, args))
            print("soak: " + json.dumps(results[-1]), flush=True)
        except Failure as failure:
            failures.append(str(failure))
            print(f"soak: FAILED {failure}", flush=True)
    print("\n| store | requests/s | p99 ms | 5xx | RSS start / after run 1 / end MB | slowest /healthz s | stop s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['store']} | {r['perSecond']} | {r['p99ms']:.1f} | {r['serverErrors']} | "
              f"{r['rssStartMB']} / {r['rssAfterFirstMB']} / {r['rssEndMB']} | {r['healthSlowestS']} | {r['stopSeconds']} |")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
