"""A Python client generated from the document the demo serves (/public/openapi.yaml, its steps typed;
openapi-python-client, at test time) drives the demo through every operation of the document, each
step a typed value and each answer decoded by the generated types: a change to the server that the
document does not follow fails here."""
import importlib
import json
import os
import subprocess
import sys
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from live_server import flowserver  # noqa: E402


def generate(directory, base):
    """Generates the client of the document `base` serves as the package `flowserver_client` in
    `directory` and imports it. The document is fetched here, not by the generator, whose fetch
    gives up after 5 s: a debug build makes it once, at the first request, which took 6.3 s on a
    slow host."""
    output = directory / "flowserver_client"
    document = directory / "openapi.yaml"
    with urllib.request.urlopen(base + "/public/openapi.yaml", timeout=120) as response:
        document.write_bytes(response.read())
    generated = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", str(document),
                                "--output-path", str(output), "--meta", "none"], capture_output=True, text=True)
    assert generated.returncode == 0, f"openapi-python-client failed:\n{generated.stdout}\n{generated.stderr}"
    sys.path.insert(0, str(directory))
    return importlib.import_module("flowserver_client")


def test_the_generated_python_client_runs_every_operation(tmp_path):
    with flowserver() as base:
        client_package = generate(tmp_path, base)
        from flowserver_client import models
        from flowserver_client.api.events import stream_session_events
        from flowserver_client.api.history import list_history, past_state
        from flowserver_client.api.navigation import send_step, visit
        from flowserver_client.api.sessions import create_session, delete_session, get_session
        from flowserver_client.models import (CreateSessionResponse201, ListHistoryResponse200, SendStepBody,
                                              SendStepResponse200, State, VersionEvent, VisitBody, VisitResponse200)

        anonymous = client_package.Client(base_url=base + "/api/v1", raise_on_unexpected_status=True)
        created = create_session.sync(client=anonymous)
        assert isinstance(created, CreateSessionResponse201) and created.state.top.url == "/onboarding/login"
        api = client_package.AuthenticatedClient(base_url=base + "/api/v1", token=created.session, raise_on_unexpected_status=True)

        def step(step_name, **params):
            # Each of the demo's steps is a model of its own: AppStepMovieIsPicked, its params typed.
            model = getattr(models, "AppStep" + step_name[0].upper() + step_name[1:])
            typed = model.from_dict({"name": step_name, "params": params})
            answer = send_step.sync(client=api, body=SendStepBody(step=typed))
            assert isinstance(answer, SendStepResponse200), answer
            return answer

        step("userIsLoggedIn", name="Ada")
        step("apiKeyIsFilledIn", apiKey="demo-key")
        picked = step("movieIsPicked", withId=2)  # an integer param, as the document types it
        assert picked.state.top.url == "/movies/2" and picked.entry.step.params["withId"] == 2
        assert step("castIsPicked", withId="4").state.top.url == "/cast/4"  # the same param as text

        state = get_session.sync(client=api)
        assert isinstance(state, State) and state.version == 5 and state.top.page == "cast"
        history = list_history.sync(client=api, after=1, limit=2)
        assert isinstance(history, ListHistoryResponse200) and [entry.seq for entry in history.entries] == [2, 3] and history.next_ == 3
        past = past_state.sync(client=api, seq=4)  # right after the movie was picked
        assert isinstance(past, State) and past.top.url == "/movies/2" and past.version == picked.state.version
        assert past_state.sync_detailed(client=api, seq=99).status_code == 404
        visited = visit.sync(client=api, body=VisitBody(url="/wishlist"))
        assert isinstance(visited, VisitResponse200) and visited.state.top.url == "/wishlist"

        # The event stream stays open: its request comes from the generated code, its first event
        # is read as it arrives and decoded by the generated type.
        request = stream_session_events._get_kwargs(last_event_id="0")
        with api.get_httpx_client().stream(**request, timeout=5) as response:
            assert response.status_code == 200 and response.headers["content-type"] == "text/event-stream"
            data = next(line for line in response.iter_lines() if line.startswith("data: "))
        event = VersionEvent.from_dict(json.loads(data.removeprefix("data: ")))
        assert event.version == visited.state.version and event.top.url == "/wishlist"

        deleted = delete_session.sync_detailed(client=api)
        assert deleted.status_code == 204
        assert get_session.sync_detailed(client=api).status_code == 401
