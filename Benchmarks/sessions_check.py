#!/usr/bin/env python3
"""Sessions across a deploy (`make bench`): `python3 Benchmarks/sessions_check.py BENCH_BIN FLOWSERVER`.

Runs MigrationBench (the cost of a read that migrates, in decodes of one that does not) with
SESSIONS (default 100,000) demo sessions written to a throwaway SQLite file, then times
`flowserver sessions check` reading them all (target: under 30 s), and prints Markdown.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

SESSIONS = int(os.environ.get("SESSIONS", "100000"))


def main():
    bench_bin, flowserver = pathlib.Path(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="flowserver-check-") as directory:
        path = f"{directory}/sessions.sqlite"
        made = subprocess.run([str(bench_bin / "MigrationBench"), "--sqlite", path, "--sessions", str(SESSIONS)],
                              capture_output=True, text=True, check=True)
        print("\n## Sessions across a deploy\n")
        print(made.stdout.strip())
        start = time.monotonic()
        check = subprocess.run([flowserver, "sessions", "check", "--format", "json", "--store", f"sqlite:{path}"],
                               capture_output=True, text=True)
        seconds = time.monotonic() - start
        report = json.loads(check.stdout)
        print()
        print("| `sessions check` on SQLite | sessions | seconds | sessions/s | read as they are | migrate | would reset | exit |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        print(f"| target: under 30 s | {report['sessions']:,} | {seconds:.1f} | {report['sessions'] / seconds:,.0f} "
              f"| {report['readAsIs']:,} | {report['migrate']:,} | {report['reset']:,} | {check.returncode} |")


if __name__ == "__main__":
    main()
