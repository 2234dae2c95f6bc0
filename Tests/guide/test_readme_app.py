"""The README's smallest app, built by `scripts/guide-package.py` from the README's own text (its
"The smallest app" section): it serves its one page, and its command line is FlowServer's. Run by
`make example-tests` with HI_PACKAGE set to the package and HI_BIN to its built executable."""
import http.client
import os
import pathlib
import subprocess

from served_app import served

PACKAGE = pathlib.Path(os.environ["HI_PACKAGE"])
BINARY = os.environ["HI_BIN"]


def get(port, path, cookie=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, response.getheader("Location"), response.getheader("Set-Cookie"), text


def test_help_is_flowservers_command_line():
    result = subprocess.run([BINARY, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "Says hi." in result.stdout and "--store" in result.stdout


def test_it_serves_its_page():
    with served(BINARY, PACKAGE) as port:
        status, location, cookie, _ = get(port, "/")
        assert (status, location) == (303, "/hi")
        status, _, _, page = get(port, "/hi", cookie.split(";")[0] if cookie else None)
        assert status == 200 and "<h1>Hi!</h1>" in page and "<title>Hi · Hi</title>" in page
