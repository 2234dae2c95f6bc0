"""The deployment of deploy/ without a Docker engine: Debian's nginx with the same location rules
(deploy/nginx/flowserver-locations.conf) in front of two flowserver instances on a throwaway
PostgreSQL cluster, round-robin, no sticky sessions. Chromium walks the demo's main paths through
nginx — onboarding, tabs, a movie, its cast, Back, the settings modal — with the session's tree
checked after each action, while nginx's log shows the requests alternating between the
instances; and a live-tab event crosses from one instance to a stream nginx holds open on the
other."""
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest
import yaml

from conftest import ROOT, Demo, banner_after_a_step_in_another_tab, flowserver, free_port

sys.path.insert(0, str(ROOT / "Tests" / "soak"))
from cluster import PostgresCluster  # noqa: E402

DEPLOY = ROOT / "deploy"


def nginx_configuration(directory, port, upstreams):
    """A whole nginx.conf for this test: its files in `directory`, listening on `port`, the
    upstream `flowserver` made of `upstreams`, and deploy/'s location rules included as they are."""
    servers = "".join(f"        server {address};\n" for address in upstreams)
    return f"""
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstream '$request_method $request_uri $status $upstream_addr';
    access_log {directory}/access.log upstream;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    upstream flowserver {{
{servers}        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        include {DEPLOY}/nginx/flowserver-locations.conf;
    }}
}}
"""


@pytest.fixture(scope="module")
def behind_nginx():
    """nginx's base URL, the two instances' addresses and nginx's access log."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    with PostgresCluster() as cluster, \
            flowserver("--log-level", "warning", "--trusted-proxy", "127.0.0.1", store=cluster.url) as first, \
            flowserver("--log-level", "warning", "--trusted-proxy", "127.0.0.1", store=cluster.url) as second, \
            tempfile.TemporaryDirectory() as directory:
        shutil.os.chmod(directory, 0o777)  # nginx's workers run as nobody when the test runs as root
        port = free_port()
        upstreams = [first.removeprefix("http://"), second.removeprefix("http://")]
        configuration = f"{directory}/nginx.conf"
        with open(configuration, "w") as file:
            file.write(nginx_configuration(directory, port, upstreams))
        process = subprocess.Popen([nginx, "-e", f"{directory}/error.log", "-p", directory, "-c", configuration],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 10
            while subprocess.run(["bash", "-c", f"exec 3<>/dev/tcp/127.0.0.1/{port}"], capture_output=True).returncode != 0:
                assert process.poll() is None, f"nginx did not start: {process.stderr.read()}"
                assert time.monotonic() < deadline, "nginx did not listen within 10 s"
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port}", upstreams, f"{directory}/access.log"
        finally:
            process.terminate()
            process.wait(timeout=10)


def served_by(access_log):
    """The upstream address of every request in nginx's log, in order."""
    with open(access_log) as log:
        return [line.split()[-1] for line in log if line.strip()]


def test_the_demo_through_nginx_on_two_instances(browser, behind_nginx):
    base, upstreams, access_log = behind_nginx
    demo = Demo(browser, base)
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.assert_tree_follows()
    for tab, path in [("Watched", "/watched"), ("Trending", "/trending"), ("Wishlist", "/wishlist")]:
        demo.follow(tab, path)
        demo.assert_tree_follows()
    demo.follow("Blade Runner", "/movies/2")
    demo.assert_tree_follows()
    demo.follow("Harrison Ford", "/cast/4")
    demo.assert_tree_follows()
    demo.back()
    demo.back()
    demo.forward()
    demo.back()
    demo.follow("Settings", "/settings")
    demo.assert_tree_follows()
    demo.follow("Done", "/wishlist")
    demo.assert_tree_follows()
    demo.back()  # /settings left the tree; its deep link opens settings again

    # Round-robin: every request went to an instance, each took about half, and the session went
    # back and forth between them.
    addresses = served_by(access_log)
    assert set(addresses) == set(upstreams), addresses
    shares = [addresses.count(address) / len(addresses) for address in upstreams]
    assert min(shares) > 0.3, shares
    switches = sum(1 for a, b in zip(addresses, addresses[1:]) if a != b)
    assert switches > len(addresses) / 3, f"{switches} switches in {len(addresses)} requests"


def test_a_live_tab_event_crosses_instances_through_nginx(browser, behind_nginx):
    base, _, _ = behind_nginx
    # The stream is unbuffered through nginx: the banner comes within the instances' poll (0.5 s)
    # and a little more, not when nginx's buffer fills.
    first, seconds = banner_after_a_step_in_another_tab(browser, base, base)
    assert seconds < 2, "the banner took more than two seconds"
    assert first.tree_top() == "/movies/1"


def test_the_compose_file_wires_what_the_test_runs():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "flowserver-a", "flowserver-b", "nginx"} <= set(services)
    for name in ["flowserver-a", "flowserver-b"]:
        environment = services[name]["environment"]
        assert environment["FLOWSERVER_STORE"].startswith("postgres://")
        assert environment["FLOWSERVER_TRUSTED_PROXY"] == services["nginx"]["networks"]["flow"]["ipv4_address"]
    mounts = [volume.split(":")[0] for volume in services["nginx"]["volumes"]]
    for mount in mounts:
        assert (DEPLOY / mount).resolve().is_file(), mount
    default = (DEPLOY / "nginx" / "default.conf").read_text()
    assert re.findall(r"server (flowserver-[ab]):8080;", default) == ["flowserver-a", "flowserver-b"]
    assert "include /etc/nginx/flowserver-locations.conf;" in default
