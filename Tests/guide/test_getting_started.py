"""The "Getting started" article (Sources/FlowWeb/FlowWeb.docc/GettingStarted.md) as its reader
runs it, on the package `scripts/guide-package.py` made from the article's own text: `swift run
Hello --help` lists FlowServer's command line, the form refuses an empty name, a name leads to the
greeting whatever it holds (values in paths are percent-encoded), a deep link decodes it back, and
the session's tree (the JSON API) follows; the app links no PostgreSQL and says so when asked for
it. Run by `make example-tests` with HELLO_PACKAGE set to
the package and HELLO_BIN to its built executable."""
import http.client
import json
import os
import pathlib
import re
import subprocess
import urllib.parse

import pytest
from served_app import served

PACKAGE = pathlib.Path(os.environ["HELLO_PACKAGE"])
BINARY = os.environ.get("HELLO_BIN") or str(PACKAGE / ".build" / "debug" / "Hello")

# Names that break a path built by plain string interpolation, and what their URL must be.
NAMES = {
    "50%": "/hello/50%25",
    "x?y": "/hello/x%3Fy",
    "a#b": "/hello/a%23b",
    "a/b": "/hello/a%2Fb",
    "two words": "/hello/two%20words",
    "Zoë": "/hello/Zo%C3%AB",
    "東京": "/hello/%E6%9D%B1%E4%BA%AC",
}


class Client:
    """One browser's session: its cookie, carried from answer to answer."""

    def __init__(self, port):
        self.port = port
        self.cookie = None

    def request(self, method, path, form=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Cookie": self.cookie} if self.cookie else {}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        if response.getheader("Set-Cookie"):
            self.cookie = response.getheader("Set-Cookie").split(";")[0]
        connection.close()
        return response.status, response.getheader("Location"), text

    def send_name(self, name):
        """Sends the name form (from the page at /name) with `name`; the answer's status and Location."""
        status, _, page = self.request("GET", "/name")
        assert status == 200
        hidden = dict(re.findall(r'name="(_from|_r|_csrf)" value="([^"]*)"', page))
        return self.request("POST", "/_step", form={**hidden, "name": name, "_step": "nameIsEntered"})[:2]

    def top_url(self):
        status, _, state = self.request("GET", "/api/v1/session")
        assert status == 200
        return json.loads(state)["top"]["url"]


@pytest.fixture(scope="module")
def port():
    # The article's "swift run Hello --store memory --port 9000", on a free port.
    with served(BINARY, PACKAGE) as port:
        yield port


def test_help_lists_the_whole_command_line():
    result = subprocess.run(["swift", "run", "Hello", "--help"], cwd=PACKAGE, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    for flag in ["--port", "--store", "--templates", "--public", "--session-ttl", "--secure-cookies", "--log-level"]:
        assert flag in result.stdout
    assert "Says hello." in result.stdout


def test_the_name_form_and_the_greeting(port):
    client = Client(port)
    assert client.request("GET", "/")[:2] == (303, "/name")
    status, _, page = client.request("GET", "/name")
    assert status == 200 and "What is your name?" in page and 'href="/public/site.css"' in page
    assert client.send_name("") == (303, "/name")
    status, _, refused = client.request("GET", "/name")  # post/redirect/get: the page shows the message
    assert status == 200 and "Enter your name." in refused
    assert client.send_name("Ada") == (303, "/hello/Ada")
    status, _, greeting = client.request("GET", "/hello/Ada")
    assert status == 200 and "Hello, Ada!" in greeting
    assert client.top_url() == "/hello/Ada"
    # Back to the form: a visit; the tree follows.
    assert client.request("GET", "/name")[0] == 200
    assert client.top_url() == "/name"
    assert client.request("GET", "/public/site.js")[0] == 200


@pytest.mark.parametrize("name", NAMES)
def test_any_name_makes_a_working_url(port, name):
    client = Client(port)
    status, location = client.send_name(name)
    assert (status, location) == (303, NAMES[name])
    status, _, greeting = client.request("GET", location)
    assert status == 200 and f"Hello, {name}!" in greeting
    assert client.top_url() == NAMES[name]
    # Back to the form, then forward to the greeting spelled with lowercase escapes: the same page.
    assert client.request("GET", "/name")[0] == 200
    assert client.request("GET", re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), location))[0] == 200
    assert client.top_url() == NAMES[name]


@pytest.mark.parametrize("name", NAMES)
def test_a_deep_link_decodes_the_name(port, name):
    client = Client(port)
    assert client.request("GET", "/")[:2] == (303, "/name")
    status, _, greeting = client.request("GET", NAMES[name])
    assert status == 200 and f"Hello, {name}!" in greeting
    assert client.top_url() == NAMES[name]
    history = json.loads(client.request("GET", "/api/v1/session/history")[2])
    deep_links = [entry for entry in history["entries"] if entry["source"] == "deeplink"]
    assert [entry["step"] for entry in deep_links] == [{"name": "nameIsEntered", "params": {"name": name}}]


def test_an_app_that_does_not_use_postgresql_neither_links_nor_takes_it():
    # The one product FlowServer brings SQLite's driver (GRDB) and not PostgreSQL's.
    symbols = subprocess.run(["nm", BINARY], capture_output=True, text=True, check=True).stdout
    assert "4GRDB" in symbols, "nm reads the binary's Swift symbols"
    assert "PostgresNIO" not in symbols and "FlowStorePostgres" not in symbols
    result = subprocess.run([BINARY, "--store", "postgres://user:secret@127.0.0.1:1/db", "--port", "0"],
                            cwd=PACKAGE, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "hello: hello cannot open postgres:// stores: it was built without their driver (for PostgreSQL, an app "
        "depends on the product FlowServerPostgres and gives `stores: [.postgres]` in its FlowServerRuntime.Command)")
