"""The "Getting started" app (Sources/FlowWeb/FlowWeb.docc/GettingStarted.md) as its reader runs it:
--help lists FlowServer's command line, the form refuses an empty name, a name leads to the
greeting, and the session's tree (the JSON API) follows. Run by `make example-tests` with HELLO_BIN
set to the built executable."""
import http.client
import json
import os
import pathlib
import re
import socket
import subprocess
import urllib.parse

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
BINARY = os.environ.get("HELLO_BIN") or str(PACKAGE / ".build" / "debug" / "Hello")


def test_help_lists_the_whole_command_line():
    result = subprocess.run([BINARY, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    for flag in ["--port", "--store", "--templates", "--public", "--session-ttl", "--secure-cookies", "--log-level"]:
        assert flag in result.stdout
    assert "Says hello." in result.stdout


def test_the_name_form_and_the_greeting():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([BINARY, "--port", str(port), "--store", "memory"], cwd=PACKAGE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout.readline().startswith("listening on")
        cookie = None

        def request(method, path, form=None, headers=None):
            nonlocal cookie
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            all_headers = dict(headers or {})
            if cookie:
                all_headers["Cookie"] = cookie
            body = None
            if form is not None:
                body = urllib.parse.urlencode(form)
                all_headers["Content-Type"] = "application/x-www-form-urlencoded"
            connection.request(method, path, body=body, headers=all_headers)
            response = connection.getresponse()
            text = response.read().decode()
            if response.getheader("Set-Cookie"):
                cookie = response.getheader("Set-Cookie").split(";")[0]
            connection.close()
            return response.status, response.getheader("Location"), text

        assert request("GET", "/")[:2] == (303, "/name")
        status, _, page = request("GET", "/name")
        assert status == 200 and "What is your name?" in page and 'href="/public/site.css"' in page
        hidden = dict(re.findall(r'name="(_from|_r|_csrf)" value="([^"]*)"', page))
        assert request("POST", "/_step", form={**hidden, "name": "", "_step": "nameIsEntered"})[:2] == (303, "/name")
        status, _, refused = request("GET", "/name")  # post/redirect/get: the page shows the message
        assert status == 200 and "Enter your name." in refused
        assert request("POST", "/_step", form={**hidden, "name": "Ada", "_step": "nameIsEntered"})[:2] == (303, "/hello/Ada")
        status, _, greeting = request("GET", "/hello/Ada")
        assert status == 200 and "Hello, Ada!" in greeting
        status, _, state = request("GET", "/api/v1/session")
        assert status == 200 and json.loads(state)["top"]["url"] == "/hello/Ada"
        # Back to the form: a visit; the tree follows.
        assert request("GET", "/name")[0] == 200
        assert json.loads(request("GET", "/api/v1/session")[2])["top"]["url"] == "/name"
        assert request("GET", "/public/site.js")[0] == 200
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0
