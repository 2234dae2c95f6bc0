"""The API's OpenAPI document (Sources/FlowWeb/Defaults/Public/openapi.yaml) against the server: a valid OpenAPI document, and Schemathesis (every check,
every phase that applies) finding nothing on a live demo server, each test case authenticated
with a session of its own (schemathesis_hooks.py)."""
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "support"))
from live_server import flowserver  # noqa: E402

DOCUMENT = ROOT / "Sources" / "FlowWeb" / "Defaults" / "Public" / "openapi.yaml"
# Schemathesis' command, installed beside this Python (pip's scripts folder may not be on PATH).
SCHEMATHESIS = shutil.which("st", path=os.path.dirname(sys.executable)) or shutil.which("st") or "st"


def test_the_document_is_valid_openapi():
    from openapi_spec_validator import validate
    from openapi_spec_validator.readers import read_from_filename
    validate(read_from_filename(str(DOCUMENT))[0])


def test_schemathesis_finds_nothing(tmp_path):
    # Every test case creates a session: the new-session limit is the bucket of a whole test run.
    with flowserver("--new-sessions-per-minute", "100000", "--new-session-burst", "100000") as base:
        environment = {**os.environ, "FLOWSERVER_API": base + "/api/v1", "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
                       "PYTHONPATH": str(pathlib.Path(__file__).parent)}
        run = subprocess.run(
            [SCHEMATHESIS, "--config-file", str(pathlib.Path(__file__).parent / "schemathesis.toml"), "run", str(DOCUMENT), "--url", base + "/api/v1", "--checks", "all", "--seed", "20261125",
             "--max-examples", "60", "--request-timeout", "5", "--no-color"],
            env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
        print(run.stdout[-1500:])  # the summary (test cases, phases), shown with -s
