"""Schemathesis hooks for Tests/api/test_openapi.py: every test case gets a session of its own,
onboarded (its top is the wishlist), so steps, visits, history reads and DELETE act on a real
session — and one test case's DELETE cannot leave the next one unauthenticated."""
import json
import os
import urllib.request

import schemathesis

API = os.environ.get("FLOWSERVER_API", "")


def call(method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(API + path, method=method, headers=headers, data=json.dumps(body).encode() if body else None)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@schemathesis.auth(refresh_interval=None)
class OnboardedSession:
    def get(self, case, context):
        session = call("POST", "/sessions")["session"]
        call("POST", "/session/steps", {"step": {"name": "userIsLoggedIn", "params": {"name": "Ada"}}}, session)
        call("POST", "/session/steps", {"step": {"name": "apiKeyIsFilledIn", "params": {"apiKey": "demo-key"}}}, session)
        return session

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
