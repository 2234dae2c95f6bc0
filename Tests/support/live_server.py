"""A real flowserver on a free port of 127.0.0.1, for the Python suites (browser, API)."""
import contextlib
import os
import pathlib
import socket
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def flowserver(*arguments, store="memory", port=None):
    """A flowserver on `store` (the repository's templates and files) on `port` of 127.0.0.1 (a
    free one by default), given `arguments` besides; yields its base URL and stops it at the end.
    The binary is `$FLOWSERVER_BIN`, or the debug build's."""
    binary = os.environ.get("FLOWSERVER_BIN") or str(ROOT / ".build" / "debug" / "flowserver")
    port = port or free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--store", store, "--templates", str(ROOT / "Templates"),
         *arguments],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("listening on"), f"flowserver did not start: {line!r}"
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=15)
