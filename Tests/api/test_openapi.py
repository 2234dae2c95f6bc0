"""The API's OpenAPI document against the server: FlowServer's (Sources/FlowWeb/Defaults/Public/openapi.yaml)
a valid OpenAPI document; the one the demo serves (/public/openapi.yaml, with the demo's own steps,
typed) valid too; and Schemathesis (every check, every phase that applies) finding nothing on a live
demo server with the served document, at a fixed seed and at a random one (printed when it fails),
each test case authenticated with a session of its own (schemathesis_hooks.py)."""
import os
import pathlib
import random
import shutil
import subprocess
import sys
import urllib.request

import pytest

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


def served_document(base):
    """The document the demo serves, with its own steps (fetched, parsed)."""
    import yaml
    with urllib.request.urlopen(base + "/public/openapi.yaml", timeout=60) as answer:
        return yaml.safe_load(answer.read())


def test_the_served_document_types_the_demos_steps():
    from openapi_spec_validator import validate
    with flowserver() as base:
        document = served_document(base)
    validate(document)
    schemas = document["components"]["schemas"]
    body = document["paths"]["/session/steps"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["step"] == {"$ref": "#/components/schemas/AppStep"}
    names = {ref["$ref"].rsplit("/", 1)[1] for ref in schemas["AppStep"]["oneOf"]}
    assert {"AppStep_movieIsPicked", "AppStep_castIsPicked", "AppStep_userIsLoggedIn", "AppStep_apiKeyIsFilledIn",
            "AppStep_settingsAreRequired"} <= names, names
    picked = schemas["AppStep_movieIsPicked"]["properties"]
    assert picked["name"] == {"type": "string", "enum": ["movieIsPicked"]}
    assert picked["params"]["required"] == ["withId"]
    assert picked["params"]["properties"]["withId"] == {"$ref": "#/components/schemas/IntegerParam"}
    assert schemas["AppStep_userIsLoggedIn"]["properties"]["params"]["properties"]["name"] == {"type": "string"}
    assert schemas["AppStep_settingsAreRequired"]["required"] == ["name"]
    # Answers keep the general Step: a history holds steps no page sends (the stepper's first).
    assert schemas["Entry"]["properties"]["step"]["oneOf"][0] == {"$ref": "#/components/schemas/Step"}


@pytest.mark.parametrize("seed", [20261125, random.randrange(1 << 32)])
def test_schemathesis_finds_nothing(tmp_path, seed):
    # Every test case creates a session: the new-session limit is the bucket of a whole test run.
    with flowserver("--new-sessions-per-minute", "100000", "--new-session-burst", "100000") as base:
        environment = {**os.environ, "FLOWSERVER_API": base + "/api/v1", "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
                       "PYTHONPATH": str(pathlib.Path(__file__).parent)}
        run = subprocess.run(
            [SCHEMATHESIS, "--config-file", str(pathlib.Path(__file__).parent / "schemathesis.toml"), "run",
             base + "/public/openapi.yaml", "--url", base + "/api/v1", "--checks", "all", "--seed", str(seed),
             "--max-examples", "60", "--request-timeout", "5", "--no-color"],
            env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"seed {seed}:\n" + run.stdout[-6000:] + run.stderr[-2000:]
        print(f"seed {seed}:", run.stdout[-1500:])  # the summary (test cases, phases), shown with -s
