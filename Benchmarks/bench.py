#!/usr/bin/env python3
"""FlowServer's benchmark suite (`make bench`, through run.sh, which builds what it runs).

Every HTTP scenario runs with `wrk -t2` at 8, 64 and 256 connections on 127.0.0.1. Servers are
started once; in each round every scenario is measured at each connection count one after the
other, so ratios compare figures taken close in time on this noisy machine. Figures are medians
of the rounds, with the spread (min-max); a ratio is the median of the rounds' ratios, each of two
figures taken one right after the other. One table is printed at the end and written to
results/latest.md.

Environment: ROUNDS (default 3), DURATION (wrk seconds, default 5), CONNECTIONS (default
"8 64 256"), SCALE (sessions for the scale scenario, default "10000 100000").
"""
import http.client
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
ROUNDS = int(os.environ.get("ROUNDS", "3"))
DURATION = int(os.environ.get("DURATION", "5"))
CONNECTIONS = [int(c) for c in os.environ.get("CONNECTIONS", "8 64 256").split()]
SCALE = [int(n) for n in os.environ.get("SCALE", "10000 100000").split()]
BIN = Path(sys.argv[1]).resolve()            # the Benchmarks package's release bin folder
PEER_BIN = Path(sys.argv[2]).resolve()       # the Peers package's release bin folder
C_LIMIT = Path(sys.argv[3]).resolve()        # the C limit program
PAGE = Path(sys.argv[4]).resolve()           # the fixed 2 KB page
LOGIN = '{"name":"userIsLoggedIn","params":{"name":"Ada"}}'
API_KEY = '{"name":"apiKeyIsFilledIn","params":{"apiKey":"bench-key"}}'
MOVIE = '{"name":"movieIsPicked","params":{"withId":1}}'
CAST = '{"name":"castIsPicked","params":{"withId":1}}'


def log(text):
    print(text, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


def wait_until_explored(port, seconds=60):
    """Waits for the exploration of the app's navigation graph that a flowserver makes once, in the
    background, from its start (`/_inspector/graph` answers when it is done): about a second of CPU
    each, which would otherwise fall on the first measurements, whichever server they measure."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_inspector/graph", timeout=seconds) as response:
        response.read()


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Server:
    """A server process on a free port, stopped at the end."""

    def __init__(self, name, command):
        self.name = name
        self.port = free_port()
        self.process = subprocess.Popen(
            [str(c) for c in command(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        wait_for_port(self.port)

    @property
    def rss(self):
        return rss_mb(self.process.pid)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def flowserver(store):
    # wrk's 256 connections all come from 127.0.0.1: no per-client limits.
    return lambda port: [BIN / "flowserver", "--port", port, "--store", store, "--max-connections-per-client", "0",
                         "--new-sessions-per-minute", "0",
                         "--templates", ROOT / "Templates"]


def make_sessions(server, count, steps, forms=False):
    command = [BIN / "SessionMaker", server.port, count] + (["--forms"] if forms else []) + steps
    output = subprocess.run([str(c) for c in command], check=True, capture_output=True, text=True).stdout
    return [line.split() for line in output.splitlines() if line.strip()]


def first_visit(server):
    """Where `GET /` sends a new visitor, and the cookie it gives them (a session not stored)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/")
    response = connection.getresponse()
    location, cookie = response.getheader("Location"), response.getheader("Set-Cookie").split(";")[0]
    connection.close()
    return location, cookie


def wrk(port, path, connections, headers=(), script=None, script_args=()):
    """Runs wrk; answers (requests/s, p50 ms, p99 ms, errors)."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{DURATION}s", "--latency", "--timeout", "5s"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", str(script)]
    command.append(f"http://127.0.0.1:{port}{path}")
    if script_args:
        command += ["--"] + list(script_args)
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    latency = {m.group(1): to_ms(m.group(2)) for m in re.finditer(r"^\s+(50|99)%\s+(\S+)", output, re.M)}
    errors = re.findall(r"(Non-2xx or 3xx responses: \d+|Socket errors: .*)", output)
    return rps, latency.get("50", 0.0), latency.get("99", 0.0), errors


def to_ms(text):
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


class Scenario:
    """An HTTP scenario: a server and a wrk invocation, with its results per connection count."""

    def __init__(self, key, title, server, path="/", headers=(), script=None, script_args=()):
        self.key, self.title, self.server = key, title, server
        self.path, self.headers, self.script, self.script_args = path, headers, script, script_args
        self.results = {c: [] for c in CONNECTIONS}
        self.rss = 0.0

    def measure(self, connections):
        wrk(self.server.port, self.path, connections, self.headers, self.script, self.script_args)  # warm-up
        rps, p50, p99, errors = wrk(self.server.port, self.path, connections, self.headers, self.script, self.script_args)
        self.results[connections].append((rps, p50, p99))
        self.rss = max(self.rss, self.server.rss)
        note = f"  ({'; '.join(errors)})" if errors else ""
        log(f"  {self.title:<44} c={connections:<4} {rps:>10,.0f} req/s  p50 {p50:7.2f} ms  p99 {p99:7.2f} ms{note}")

    def row(self, connections):
        runs = self.results[connections]
        rates = [r[0] for r in runs]
        middle = sorted(runs)[len(runs) // 2]
        return (f"| {self.title} | {connections} | {statistics.median(rates):,.0f} | {min(rates):,.0f}–{max(rates):,.0f} "
                f"| {middle[1]:.2f} | {middle[2]:.2f} | {self.rss:.0f} |")


def page_size(scenario):
    """The size of the page a scenario fetches."""
    request = urllib.request.Request(f"http://127.0.0.1:{scenario.server.port}{scenario.path}")
    for header in scenario.headers:
        name, value = header.split(": ", 1)
        request.add_header(name, value)
    with urllib.request.urlopen(request) as response:
        return len(response.read())


class PostgresCluster:
    """A throwaway PostgreSQL cluster (as the postgres user when run as root), as the tests make."""

    def __init__(self):
        versions = sorted(os.listdir("/usr/lib/postgresql"))
        self.bin = Path(f"/usr/lib/postgresql/{versions[-1]}/bin")
        self.dir = Path(tempfile.mkdtemp(prefix="flowserver-bench-pg-"))
        self.port = free_port()
        self.run_as = "postgres" if os.getuid() == 0 else None
        if self.run_as:
            shutil.chown(self.dir, self.run_as)
        (self.dir / "password").write_text("flow")
        if self.run_as:
            shutil.chown(self.dir / "password", self.run_as)
        data = self.dir / "data"
        self.tool("initdb", "-D", data, "-U", "flow", "--pwfile", self.dir / "password", "-A", "md5", "--no-sync")
        self.tool("pg_ctl", "-D", data, "-l", self.dir / "log", "-w", "-o",
                  f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200", "start")
        self.tool("createdb", "-h", "127.0.0.1", "-p", self.port, "-U", "flow", "flowbench", env={"PGPASSWORD": "flow"})
        self.url = f"postgres://flow:flow@127.0.0.1:{self.port}/flowbench"

    def tool(self, name, *arguments, env=None):
        command = [str(self.bin / name)] + [str(a) for a in arguments]
        if self.run_as:
            command = ["runuser", "-u", self.run_as, "--", "env"] + [f"{k}={v}" for k, v in (env or {}).items()] + command
        subprocess.run(command, check=True, capture_output=True, env={**os.environ, **(env or {})})

    def stop(self):
        self.tool("pg_ctl", "-D", self.dir / "data", "-m", "fast", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


def http_scenarios(work, cluster):
    servers = []

    def start(name, command):
        server = Server(name, command)
        servers.append(server)
        return server

    c_server = start("C", lambda port: [C_LIMIT, port, PAGE, 2])
    swift_server = start("MicroHTTP", lambda port: [BIN / "MicroHTTPFixedPage", port, PAGE, 2])
    memory = start("flowserver memory", flowserver("memory"))
    sqlite = start("flowserver sqlite", flowserver(f"sqlite:{work}/pages.sqlite"))
    # Steps get servers of their own, so each RSS figure belongs to one scenario.
    steps_memory = start("flowserver memory (steps)", flowserver("memory"))
    steps_sqlite = start("flowserver sqlite (steps)", flowserver(f"sqlite:{work}/steps.sqlite"))
    steps_postgres = start("flowserver postgres (steps)", flowserver(cluster.url))
    peer_data = work / "peer-data.json"
    peer_data.write_bytes(subprocess.run([str(BIN / "PeerData"), "1"], check=True, capture_output=True).stdout)
    # The peer renders the same templates: the demo's pages and FlowWeb's default layout.
    peer_templates = work / "peer-templates"
    shutil.copytree(ROOT / "Templates", peer_templates)
    shutil.copy(ROOT / "Sources" / "FlowWeb" / "Defaults" / "Templates" / "layout.mustache", peer_templates)
    peer = start("Hummingbird", lambda port: [PEER_BIN / "HummingbirdPeer", port, peer_templates, peer_data])

    # First visits: no cookie, as crawlers, scanners and link previews come. A deep link in the
    # demo before onboarding is held for after it, a change: each stores a session (the limit on
    # new sessions is off in the benchmarks), so it has a server of its own.
    first_visits = start("flowserver sqlite (first visits)", flowserver(f"sqlite:{work}/first.sqlite"))
    deep_links = start("flowserver sqlite (first deep links)", flowserver(f"sqlite:{work}/deep.sqlite"))
    for server in servers:
        if server.name.startswith("flowserver"):
            wait_until_explored(server.port)

    page_scenarios = []
    for key, title, server in [("3m", "3. FlowServer page, memory store", memory), ("3s", "3. FlowServer page, SQLite store", sqlite)]:
        session = make_sessions(server, 1, [LOGIN, API_KEY, MOVIE])[0][0]
        page_scenarios.append(Scenario(key, title, server, "/movies/1", headers=[f"Cookie: flowserver_session={session}"]))
    first_page, visitor = first_visit(first_visits)
    page_scenarios += [
        Scenario("3f", "3. first visit, cookie-less GET / (SQLite)", first_visits, "/"),
        Scenario("3p", "3. first visit, cookie-less first page (SQLite)", first_visits, first_page),
        Scenario("3r", "3. reload of the first page, session not stored (SQLite)", first_visits, first_page, headers=[f"Cookie: {visitor}"]),
        Scenario("3d", "3. first visit, cookie-less deep link, stored (SQLite)", deep_links, "/movies/1"),
    ]
    step_scenarios = []
    for key, title, server in [("5m", "5. steps, memory store", steps_memory), ("5s", "5. steps, SQLite store", steps_sqlite),
                               ("5p", "5. steps, PostgreSQL store", steps_postgres)]:
        sessions = work / f"sessions-{key}.txt"
        sessions.write_text("\n".join(" ".join(s) for s in make_sessions(server, 16, [LOGIN, API_KEY], forms=True)) + "\n")
        step_scenarios.append(Scenario(key, title, server, "/", script=HERE / "wrk" / "steps.lua", script_args=[sessions]))

    scenarios = [Scenario("1", "1. C + libmicrohttpd, fixed page (limit)", c_server),
                 Scenario("2", "2. MicroHTTP (Swift), fixed page", swift_server),
                 *page_scenarios,
                 Scenario("4", "4. Hummingbird 2 + swift-mustache, same page", peer, "/movies/1"),
                 *step_scenarios]
    sizes = {s.key: page_size(s) for s in scenarios if s.key in ("1", "3m", "4")}
    log(f"page sizes: fixed {sizes['1']} B, FlowServer /movies/1 {sizes['3m']} B, peer /movies/1 {sizes['4']} B")
    try:
        for round_number in range(1, ROUNDS + 1):
            log(f"round {round_number} of {ROUNDS}")
            for connections in CONNECTIONS:
                for scenario in scenarios:
                    scenario.measure(connections)
    finally:
        for server in servers:
            server.stop()
    return {s.key: s for s in scenarios}, sizes


def scale_scenario(work):
    """RSS of a memory-store flowserver holding N onboarded sessions three pages deep."""
    server = Server("flowserver scale", flowserver("memory"))
    figures = []
    made = 0
    try:
        wait_until_explored(server.port)
        baseline = server.rss
        for target in SCALE:
            started = time.time()
            make_sessions(server, target - made, [LOGIN, API_KEY, MOVIE, CAST])
            made = target
            figures.append((target, server.rss, time.time() - started))
            log(f"  {target:,} sessions: RSS {server.rss:.0f} MB (made in {figures[-1][2]:.0f} s)")
    finally:
        server.stop()
    return baseline, figures


def main():
    RESULTS.mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="flowserver-bench-"))
    cluster = PostgresCluster()
    try:
        log(f"HTTP scenarios: wrk -t2 -d{DURATION}s at {CONNECTIONS} connections, {ROUNDS} rounds")
        scenarios, sizes = http_scenarios(work, cluster)
        log("scale: live sessions in a memory-store flowserver")
        baseline, scale = scale_scenario(work)
        log("stores: session load times")
        stores = subprocess.run([str(BIN / "StoreBench"), "--postgres", cluster.url, "--scale", str(max(SCALE)),
                                 "--directory", str(work / "stores")], check=True, capture_output=True, text=True).stdout
        log(stores)
        engine = subprocess.run([str(BIN / "EngineBench")], check=True, capture_output=True, text=True).stdout
        template_dir = ROOT.parent / "shared" / "notes" / "bench-page"
        templates = (subprocess.run([str(BIN / "TemplateBench"), str(template_dir)], check=True, capture_output=True, text=True).stdout
                     if template_dir.is_dir() else "shared/notes/bench-page is missing: template benchmark skipped\n")
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)

    lines = [f"# FlowServer benchmarks ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
             f"`make bench` on this machine ({os.cpu_count()} cores): wrk -t2 -d{DURATION}s on 127.0.0.1, {ROUNDS} rounds; "
             "figures are medians of the rounds, spread min–max; p50/p99 of the median round; RSS is the server's "
             "largest resident set seen; a ratio is the median of the rounds' ratios (min–max). Pages: fixed {0} B, FlowServer /movies/1 {1} B, peer /movies/1 {2} B.".format(
                 sizes["1"], sizes["3m"], sizes["4"]), "",
             "| scenario | connections | req/s | spread | p50 ms | p99 ms | RSS MB |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for scenario in scenarios.values():
        for connections in CONNECTIONS:
            lines.append(scenario.row(connections))
    lines += ["", "Steps: each request is a form POST /_step → 303 or a Back visit GET /wishlist, alternating, over 16 sessions.", "",
              "| ratio | " + " | ".join(f"c={c}" for c in CONNECTIONS) + " | target |", "| --- |" + " --- |" * (len(CONNECTIONS) + 1)]

    def ratio(name, top, bottom, target):
        cells = []
        for c in CONNECTIONS:
            # Each round measures both servers one right after the other: the ratio of a round's
            # two figures is the one measured close in time; the median of the rounds' ratios is
            # reported, with their spread.
            pairs = zip(scenarios[top].results[c], scenarios[bottom].results[c])
            values = [a[0] / b[0] for a, b in pairs if b[0]]
            cells.append(f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})" if values else "—")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {target} |")

    ratio("2/1 MicroHTTP / C", "2", "1", "≥ 0.85")
    ratio("3/1 FlowServer page (memory) / C", "3m", "1", "≥ 0.5")
    ratio("3/4 FlowServer page (memory) / Hummingbird + swift-mustache", "3m", "4", "≥ 5")
    ratio("SQLite / memory, page", "3s", "3m", "—")
    ratio("first visit GET / ÷ page reload (SQLite)", "3f", "3s", "≥ 0.8")
    ratio("first visit, first page ÷ page reload (SQLite)", "3p", "3s", "—")
    ratio("first visit, first page ÷ reload of that page (SQLite)", "3p", "3r", "≥ 0.8")
    ratio("first visit, deep link (stores a session) ÷ page reload (SQLite)", "3d", "3s", "—")
    ratio("SQLite / memory, steps", "5s", "5m", "≥ 0.3")
    ratio("PostgreSQL / memory, steps", "5p", "5m", "—")
    lines += ["", f"Scale (6): a memory-store flowserver with onboarded sessions three pages deep (RSS {baseline:.0f} MB when empty):", "",
              "| live sessions | RSS MB | made in (s) |", "| --- | --- | --- |"]
    lines += [f"| {count:,} | {rss:.0f} | {seconds:.0f} |" for count, rss, seconds in scale]
    lines += ["", "## Stores", "", stores.strip(), "", "## Engine (7)", "", engine.strip(), "", "## Templates", "", templates.strip(), ""]
    text = "\n".join(lines)
    (RESULTS / "latest.md").write_text(text)
    log("")
    log(text)
    log("written to Benchmarks/results/latest.md")


if __name__ == "__main__":
    main()
