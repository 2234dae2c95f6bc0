"""The Swift client generated from openapi.yaml by Apple's swift-openapi-generator
(Clients/Swift, generated at build time) drives the demo: create a session, onboard, pick a movie
by integer id, read state and history, visit, read the event stream, delete: every operation, each
answer decoded by the generated types (the stream through the AsyncHTTPClient transport: URLSession
on Linux hands a body over only once it has ended)."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from live_server import flowserver  # noqa: E402

PACKAGE = os.path.join(ROOT, "Clients", "Swift")


def test_the_generated_swift_client_drives_the_demo():
    subprocess.run(["swift", "build", "--package-path", PACKAGE, "--product", "flowserver-client-check"], check=True,
                   stdout=subprocess.DEVNULL)
    binary = subprocess.run(["swift", "build", "--package-path", PACKAGE, "--show-bin-path"], check=True, capture_output=True,
                            text=True).stdout.strip() + "/flowserver-client-check"
    with flowserver() as base:
        run = subprocess.run([binary, base], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
