#!/usr/bin/env python3
"""What a hand-over between two threads costs this machine: `python3 Benchmarks/handover.py`.

Builds `handover/handover.c` (two threads passing a byte back and forth through pipes, each
sleeping until the other writes) and runs it, 3 times each way: both threads on core 0; each on a
core of its own, the cores otherwise idle; the same with both cores kept busy by two spinning
processes at nice 19 (so that no core goes idle, as when the server's threads find work waiting).
Prints the median CPU (both threads' run time, from /proc) and wall time a hand-over.

A request that waits for a database hands its work from thread to thread several times (see
Benchmarks/README.md, "What a hand-over costs on these cores"); a request answered at once by the
memory store does not.
"""
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
COUNT = 100_000


def run(binary, *arguments):
    """The CPU and wall µs a hand-over of one run."""
    cpu, wall = subprocess.run([binary, str(COUNT), *arguments], check=True, capture_output=True,
                               text=True).stdout.split()
    return float(cpu), float(wall)


def main():
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        sys.exit("error: no C compiler (cc, gcc or clang) found")
    with tempfile.TemporaryDirectory() as work:
        binary = str(pathlib.Path(work) / "handover")
        subprocess.run([compiler, "-O2", "-pthread", "-o", binary, str(HERE / "handover" / "handover.c")], check=True)
        ways = {"one core": lambda: run(binary, "0", "0"), "a core each, idle": lambda: run(binary, "0", "1")}
        results = {name: [way() for _ in range(3)] for name, way in ways.items()}
        spinners = [subprocess.Popen(["nice", "-n", "19", "sh", "-c", "while :; do :; done"]) for _ in range(2)]
        try:
            results["a core each, kept busy"] = [run(binary, "0", "1") for _ in range(3)]
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    print("| threads on | CPU a hand-over, µs | wall a hand-over, µs |")
    print("| --- | --- | --- |")
    for name, figures in results.items():
        print(f"| {name} | {statistics.median(cpu for cpu, _ in figures):.1f} "
              f"| {statistics.median(wall for _, wall in figures):.1f} |")


if __name__ == "__main__":
    main()
