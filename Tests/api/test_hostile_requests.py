"""Hostile input through the server: thousands of seeded random and mutated requests — step links
and forms with junk params, `_from`, `_r` and `_csrf`; bodies with wrong or missing content types;
deep and huge JSON; invalid UTF-8; garbage cookies and `Authorization` headers; malformed HTTP
over a raw socket. Nothing may answer 5xx or stop the server, and a victim session that only
received requests that must be refused is unchanged afterwards (its State and history)."""
import http.client
import json
import os
import random
import socket
import sys
import urllib.parse

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
from live_server import flowserver  # noqa: E402

SEED = int(os.environ.get("FUZZ_SEED", "20261125"))
ROUNDS = int(os.environ.get("FUZZ_ROUNDS", "1500"))
STEPS = ["movieIsPicked", "castIsPicked", "userIsLoggedIn", "apiKeyIsFilledIn", "settingsAreRequired", "logoutIsRequired",
         "aboutIsRequired", "dashboardIsRequired", "settingsAreComplete", "alertIsDismissed"]
PAGES = ["/", "/wishlist", "/watched", "/trending", "/movies/2", "/cast/4", "/settings", "/onboarding/login", "/about",
         "/_inspector", "/healthz", "/metrics", "/public/site.css", "/api/v1/session", "/api/v1/session/history"]
# (Event streams stay open: only cookie-less ones, which end at once, are sent; see kind 6.)


def header_value(text):
    """`text` as a header value can carry it: Latin-1, without line breaks or NUL (raw requests
    below send those)."""
    return text.encode("latin-1", "replace").decode("latin-1").replace("\r", " ").replace("\n", " ").replace("\0", " ")


class Fuzzer:
    def __init__(self, base, seed):
        self.random = random.Random(seed)
        parsed = urllib.parse.urlparse(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.connection = None
        self.statuses = {}

    # --- values

    def junk(self):
        """A short hostile value."""
        r = self.random
        return r.choice([
            "", " ", "0", "-1", "1e309", "NaN", "9" * 40, "true", "null", "%", "%zz", "%00", "%C0%AF", "\\u0000", "../../etc/passwd",
            "<script>alert(1)</script>", "' OR 1=1 --", "\u202e\u0000\uffff", "🎬" * 50, "a" * r.choice([100, 5000, 70000]),
            "".join(chr(r.randrange(1, 0x2FFF)) for _ in range(r.randrange(1, 40))),
            "".join(r.choice("%&=?#;/+ ") for _ in range(r.randrange(1, 20))),
        ])

    def not_an_integer(self):
        return self.random.choice(["x", "seven", "3x", "1.5", "1e3", "--1", "0x10", "", "٣", "9" * 40, "%", "true"])

    def json_body(self):
        r = self.random
        kind = r.randrange(9)
        if kind == 0:
            depth = r.choice([100, 5000, 200000])
            return ("[" * depth + "]" * depth).encode()
        if kind == 1:
            depth = r.choice([100, 5000, 200000])
            return ('{"step":' * depth + "1" + "}" * depth).encode()
        if kind == 2:
            return json.dumps({"step": {"name": "movieIsPicked", "params": {"withId": "x" * r.choice([10, 1 << 20])}}}).encode()
        if kind == 3:
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 300)))
        if kind == 4:
            return b'{"step":{"name":"movieIsPicked","params":{"withId":"\xff\xfe\xc0\xaf"}}}'
        if kind == 5:
            return json.dumps({"step": {"name": self.junk(), "params": {self.junk(): self.junk()}}, "from": self.junk()}).encode()
        if kind == 6:
            return json.dumps({"step": {"name": r.choice(STEPS), "params": {"withId": [1, {"a": None}]}}}).encode()
        if kind == 7:
            return b'{"step":{"name":"movieIsPicked","params":{"withId":1}},"from":1e999}'
        return json.dumps({"url": self.junk()}).encode()

    # --- transport

    def send(self, method, path, headers=None, body=None):
        """Sends one request on a kept-alive connection; answers the status (0: the server
        closed the connection without an answer, which libmicrohttpd does for some malformed
        requests)."""
        if body is not None and len(body) > 1 << 20:
            # Over the body limit: the server answers 413 at once and closes without reading the
            # body, so the answer is read from a raw socket whose sending may fail half-way.
            head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(body)}\r\n"
            head += "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items()) + "\r\n"
            line = self.raw(head.encode("latin-1") + body)
            status = int(line.split(" ")[1]) if line.startswith("HTTP/1.1 ") else 0
            self.statuses[status] = self.statuses.get(status, 0) + 1
            return status
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
            try:
                self.connection.putrequest(method, path, skip_accept_encoding=True)
                for name, value in (headers or {}).items():
                    self.connection.putheader(name, value)
                if body is not None:
                    self.connection.putheader("Content-Length", str(len(body)))
                self.connection.endheaders(body)
                response = self.connection.getresponse()
                response.read()
                if response.will_close:
                    self.connection.close()
                    self.connection = None
                self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
                return response.status
            except (http.client.HTTPException, ConnectionError, socket.timeout) as error:
                self.connection.close()
                self.connection = None
                if attempt == 1:
                    raise AssertionError(f"{method} {path[:200]}: no answer ({error!r})") from error
        return 0

    def raw(self, data):
        """Sends raw bytes on a new connection; answers the status line, or "" when the server
        closed the connection without one or sent none within 3 s (a request it waits the rest
        of, until its read timeout)."""
        with socket.create_connection((self.host, self.port), timeout=3) as connection:
            try:
                connection.sendall(data)
            except OSError:
                pass
            answer = b""
            try:
                while b"\r\n" not in answer and (chunk := connection.recv(65536)):
                    answer += chunk
            except (ConnectionResetError, socket.timeout):
                pass
        if not answer:
            return ""
        return answer.split(b"\r\n", 1)[0].decode(errors="replace")

    # --- requests

    def hostile_request(self, cookie_header):
        """One random or mutated request; answers (method, path, status)."""
        r = self.random
        kind = r.randrange(8)
        headers = {"Cookie": cookie_header} if cookie_header else {}
        if kind == 0:  # a step link with junk params, _from and _r
            name = r.choice(STEPS + [self.junk()])
            query = urllib.parse.urlencode({r.choice(["withId", "_from", "_r", "name", self.junk()]): self.junk() for _ in range(r.randrange(4))})
            path = "/_step/" + urllib.parse.quote(name, safe="") + ("?" + query if query else "")
            return "GET", path, self.send("GET", path, headers)
        if kind == 1:  # a form with junk fields, wrong or missing content types
            fields = {r.choice(["_step", "_from", "_r", "_csrf", "name", "apiKey", self.junk()]): self.junk() for _ in range(r.randrange(6))}
            body = urllib.parse.urlencode(fields).encode() if r.random() < 0.7 else self.json_body()
            content_type = r.choice(["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "multipart/form-data",
                                     "text/plain", "application/json", None, self.junk()])
            if content_type is not None:
                headers["Content-Type"] = header_value(content_type)
            return "POST", "/_step", self.send("POST", "/_step", headers, body)
        if kind == 2:  # API bodies
            path = r.choice(["/api/v1/session/steps", "/api/v1/session/visits", "/api/v1/sessions"])
            headers["Content-Type"] = r.choice(["application/json", "application/json; charset=latin1", "text/json", "application/x-www-form-urlencoded"])
            if r.random() < 0.5:
                headers["Authorization"] = r.choice(["Bearer " + self.junk(), "Basic " + self.junk(), self.junk(), "Bearer"])
            headers = {k: header_value(v) for k, v in headers.items()}
            return "POST", path, self.send("POST", path, headers, self.json_body())
        if kind == 3:  # pages with garbage cookies
            garbage = r.choice(["flowserver_session=" + self.junk(), self.junk(), "flowserver_session=" + "ab" * 36, "a=b; " * 300,
                                "flowserver_session=1; flowserver_session=2", "=; ;=;"])
            headers["Cookie"] = header_value(garbage)
            path = r.choice(PAGES)
            return "GET", path, self.send("GET", path, headers)
        if kind == 4:  # junk paths and queries
            path = r.choice(PAGES) + r.choice(["", "/", "//", "/..", "%2F..%2F", "?_notice=" + urllib.parse.quote(self.junk())]) + \
                r.choice(["", "?" + urllib.parse.quote(self.junk(), safe="=&%")])
            method = r.choice(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"])
            return method, path, self.send(method, path, headers, b"" if method in ("POST", "PUT", "PATCH") else None)
        if kind == 5:  # API reads with junk queries and headers
            path = "/api/v1/session/history?" + urllib.parse.urlencode({r.choice(["after", "limit", "x"]): self.junk() for _ in range(3)})
            headers["Accept"] = header_value(r.choice(["application/json", "*/*", self.junk(), "text/html;q=junk"]))
            return "GET", path, self.send("GET", path, headers)
        if kind == 6:  # the event stream with junk Last-Event-ID
            headers["Last-Event-ID"] = header_value(self.junk())[:200]
            path = "/_events?version=" + urllib.parse.quote(self.junk())
            # A stream that opens stays open: only answers that end are read here (no session).
            headers.pop("Cookie", None)
            return "GET", path, self.send("GET", path, headers)
        # headers that are too long, or many
        headers.update({f"X-{i}": header_value(self.junk()) for i in range(r.choice([1, 50, 200]))})
        return "GET", "/wishlist", self.send("GET", "/wishlist", headers)

    def victim_request(self, victim, csrf):
        """A request with the victim's credentials that must be refused; answers (what, status)."""
        r = self.random
        cookie = {"Cookie": f"flowserver_session={victim}"}
        bearer = {"Authorization": f"Bearer {victim}"}
        kind = r.randrange(7)
        if kind == 0:  # a form without the right CSRF token
            fields = {"_step": r.choice(STEPS), "name": "Mallory", "apiKey": "x"}
            if r.random() < 0.7:
                fields["_csrf"] = r.choice([self.junk(), csrf[:-1], csrf.upper() if csrf.upper() != csrf else csrf + "0", ""])
            body = urllib.parse.urlencode(fields).encode()
            return "form without its token", self.send("POST", "/_step", {**cookie, "Content-Type": "application/x-www-form-urlencoded"}, body)
        if kind == 1:  # a link to a step the app does not have, or with an ill-typed param
            if r.random() < 0.5:
                path = "/_step/" + urllib.parse.quote("no" + self.junk(), safe="") + "?withId=1"
            else:
                path = "/_step/movieIsPicked?withId=" + urllib.parse.quote(self.not_an_integer())
            return "bad link", self.send("GET", path, cookie)
        if kind == 2:  # a link sent from another site
            return "cross-site link", self.send("GET", "/_step/movieIsPicked?withId=1", {**cookie, "Sec-Fetch-Site": "cross-site"})
        if kind == 3:  # an API change by cookie without the CSRF header
            headers = {**cookie, "Content-Type": "application/json"}
            if r.random() < 0.5:
                headers["X-CSRF-Token"] = header_value(self.junk())[:100]
            path, body = r.choice([("/api/v1/session/steps", b'{"step":{"name":"movieIsPicked","params":{"withId":1}}}'),
                                   ("/api/v1/session/visits", b'{"url":"/movies/3"}')])
            return "API change without CSRF", self.send("POST", path, headers, body)
        if kind == 4:  # a DELETE by cookie without the CSRF header
            return "DELETE without CSRF", self.send("DELETE", "/api/v1/session", cookie)
        if kind == 5:  # malformed API bodies with the bearer token
            body = r.choice([self.json_body(), b'{"step":{"name":"movieIsPicked","params":{"withId":"' + self.not_an_integer().encode() + b'"}}}',
                             b'{"step":{"name":"movieIsPicked","params":{"withId":1}},"from":null}', b"{", b"", b"null", b"[]"])
            if body.startswith(b'{"url"'):
                body = b'{"url":"not a path"}'
            return "malformed API body", self.send("POST", "/api/v1/session/steps", {**bearer, "Content-Type": "application/json"}, body)
        # a right body with a wrong content type
        content_type = r.choice(["text/plain", "application/x-www-form-urlencoded", "application/xml", "multipart/form-data; boundary=x"])
        return "API body of another type", self.send("POST", "/api/v1/session/steps", {**bearer, "Content-Type": content_type},
                                                     b'{"step":{"name":"movieIsPicked","params":{"withId":1}}}')


RAW = [
    b"\r\n\r\n",
    b"GET\r\n\r\n",
    b"GET / HTTP/1.1\r\n\r\n",  # no Host
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X: " + b"a" * 70000 + b"\r\n\r\n",
    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /_step HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort",
    b"POST /_step HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"POST /_step HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
    b"POST /_step HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    b"POST /_step HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    b"GET http://evil.example/wishlist HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET * HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)),  # a TLS ClientHello
    b"GET / HTTP/1.1\r\nHost: x\r\nCookie: flowserver_session=\xff\xfe\r\n\r\n",
    b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\n Folded: header\r\n\r\n",
]


def state_of(fuzzer, victim):
    """The victim's State and history, as the API answers them."""
    connection = http.client.HTTPConnection(fuzzer.host, fuzzer.port, timeout=10)
    connection.request("GET", "/api/v1/session", headers={"Authorization": f"Bearer {victim}"})
    state = json.loads(connection.getresponse().read())
    connection.request("GET", "/api/v1/session/history?limit=500", headers={"Authorization": f"Bearer {victim}"})
    history = json.loads(connection.getresponse().read())["entries"]
    connection.close()
    return state, history


def test_hostile_requests_answer_no_5xx_and_leave_the_victim_unchanged():
    with flowserver("--new-sessions-per-minute", "100000", "--new-session-burst", "100000") as base:
        fuzzer = Fuzzer(base, SEED)
        # The victim: an onboarded session, at its wishlist (a page with a form, and the CSRF token).
        connection = http.client.HTTPConnection(fuzzer.host, fuzzer.port, timeout=10)
        connection.request("POST", "/api/v1/sessions")
        victim = json.loads(connection.getresponse().read())["session"]
        connection.request("POST", "/api/v1/sessions")
        sandbox = json.loads(connection.getresponse().read())["session"]
        for step in [{"name": "userIsLoggedIn", "params": {"name": "Ada"}}, {"name": "apiKeyIsFilledIn", "params": {"apiKey": "k"}}]:
            connection.request("POST", "/api/v1/session/steps", body=json.dumps({"step": step}),
                               headers={"Authorization": f"Bearer {victim}", "Content-Type": "application/json"})
            answer = connection.getresponse()
            assert answer.status == 200, answer.read()
            answer.read()
        connection.request("GET", "/wishlist", headers={"Cookie": f"flowserver_session={victim}"})
        page = connection.getresponse().read().decode()
        connection.close()
        csrf = page.split('name="_csrf" value="', 1)[1].split('"', 1)[0]
        before = state_of(fuzzer, victim)

        failures, refused = [], {}
        for round_number in range(ROUNDS):
            # A cookie-less visitor or one with a session of its own (anything goes), then one of
            # the victim's requests that must be refused.
            method, path, status = fuzzer.hostile_request(None if round_number % 2 else f"flowserver_session={sandbox}")
            if status >= 500:
                failures.append(f"{status} {method} {path[:160]}")
            what, status = fuzzer.victim_request(victim, csrf)
            refused[what] = refused.get(what, []) + [status]
            if not 400 <= status < 500:
                failures.append(f"{status} for the victim's {what}")
        for data in RAW:
            line = fuzzer.raw(data)
            # 505 is HTTP's answer to an HTTP version it does not speak (RFC 9110 §15.6.6).
            if line.split(" ")[1:2] and line.split(" ")[1].startswith("5") and line.split(" ")[1] != "505":
                failures.append(f"{line} for raw {data[:60]!r}")
        assert fuzzer.send("GET", "/healthz") == 200, "the server is alive"
        after = state_of(fuzzer, victim)
        assert not failures, "\n".join(failures[:40])
        assert after[0] == before[0], "the victim's state changed"
        assert after[1] == before[1], "the victim's history changed"
        print(f"statuses: {dict(sorted(fuzzer.statuses.items()))}; the victim's refused requests: "
              f"{ {what: len(statuses) for what, statuses in refused.items()} }")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-s"]))
