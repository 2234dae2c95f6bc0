"""Secure by default: the header policy (security-headers.yml) checked with DrHEADer on every kind
of answer, with and without --secure-cookies; and in Chromium, a strict Content-Security-Policy
that blocks nothing the demo uses, and demo pages that refuse to be framed by another origin."""
import http.server
import json
import pathlib
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest
import yaml
from drheader import Drheader

from conftest import flowserver, free_port

RULES = yaml.safe_load((pathlib.Path(__file__).parent / "security-headers.yml").read_text())


def answer(url, method="GET", cookie=None, form=None):
    """The status, headers (as DrHEADer takes them) and body of the answer to `method url`."""
    headers = {"Cookie": cookie} if cookie else {}
    if form is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    request = urllib.request.Request(url, method=method, headers=headers, data=urllib.parse.urlencode(form).encode() if form else None)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            status, received, body = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, received, body = error.code, error.headers, error.read()
    found = {name: value for name, value in received.items() if name.lower() != "set-cookie"}
    found["set-cookie"] = received.get_all("Set-Cookie") or []
    return status, found, body.decode(errors="replace")


def findings(headers, rules):
    return [f"{item['rule']}: {item['message']} ({item.get('value', '')})" for item in Drheader(headers=headers).analyze(rules=rules)]


@pytest.mark.parametrize("secure", [False, True], ids=["plain", "secure-cookies"])
def test_drheader_finds_nothing_against_our_policy(secure):
    pages, others = dict(RULES["pages"]), dict(RULES["other answers"])
    if secure:
        pages.update(RULES["secure cookies"])
        others.update({"Strict-Transport-Security": RULES["secure cookies"]["Strict-Transport-Security"]})
    with flowserver(*(["--secure-cookies"] if secure else [])) as base:
        _, first, _ = answer(base + "/")  # a first visit: the answer that sets the cookie
        assert first["set-cookie"], "a first page sets the session cookie"
        assert first["set-cookie"][0].startswith("__Host-flowserver_session=" if secure else "flowserver_session=")
        status, created, body = answer(base + "/api/v1/sessions", "POST")
        assert status == 201
        cookie = ("__Host-" if secure else "") + "flowserver_session=" + json.loads(body)["session"]
        _, login, page = answer(base + "/onboarding/login", cookie=cookie)
        hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page))
        # Followed like a browser: 303 back to the form's page, which shows the message.
        status, refused, page = answer(base + "/_step", "POST", cookie, {**hidden, "_step": "userIsLoggedIn", "name": ""})
        assert status == 200 and "Enter your name to continue." in page, "an empty name is refused on the form's page"
        report = {}
        for name, headers, rules in [
            ("first page", first, pages),
            ("page", login, pages),
            ("form refused (its page again)", refused, pages),
            ("404 page", answer(base + "/movies/999999", cookie=cookie)[1], pages),
            ("inspector", answer(base + "/_inspector", cookie=cookie)[1], pages),
            ("new API session", created, others),
            ("API", answer(base + "/api/v1/session", cookie=cookie)[1], others),
            ("API error", answer(base + "/api/v1/session/history?limit=x", cookie=cookie)[1], others),
            ("no event stream without a session", answer(base + "/_events")[1], others),
            ("static file", answer(base + "/public/site.css")[1], others),
            ("health", answer(base + "/healthz")[1], others),
            ("metrics", answer(base + "/metrics")[1], others),
        ]:
            if found := findings(headers, rules):
                report[name] = found
        assert not report, "\n".join(f"{name}: {line}" for name, lines in report.items() for line in lines)


def test_a_demo_page_refuses_to_be_framed_by_another_origin(demo):
    target = demo.base + "/onboarding/login"

    class FramingPage(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = f'<!doctype html><title>framing</title><iframe src="{target}" width="600" height="400"></iframe>'.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), FramingPage)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        demo.driver.get(f"http://127.0.0.1:{other.server_address[1]}/")
        frame = demo.driver.find_element("tag name", "iframe")
        demo.driver.switch_to.frame(frame)
        framed_text = demo.driver.find_element("tag name", "body").text
        demo.driver.switch_to.default_content()
        assert "Welcome to FlowServer Movies" not in framed_text, "the page showed inside another site's frame"
        refusals = [entry["message"] for entry in demo.driver.get_log("browser") if "frame-ancestors" in entry["message"]]
        assert refusals, "Chromium reported no frame-ancestors refusal"
    finally:
        other.shutdown()


def test_the_content_security_policy_blocks_nothing_the_demo_uses(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    for path in ["/wishlist", "/movies/2", "/cast/4", "/trending", "/settings", "/_inspector", "/movies/999999"]:
        demo.open(path)
    demo.open("/wishlist")
    demo.driver.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}))")
    reports = [entry["message"] for entry in demo.driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert not reports, reports
