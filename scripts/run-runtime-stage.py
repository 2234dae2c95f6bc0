#!/usr/bin/env python3
"""Runs the Dockerfile's runtime stage without a Docker engine, and checks the server in it.

A minimal Debian root (`debootstrap --variant=minbase`, the stage's suite; cached as a tarball
between runs) gets what the runtime stage does, instruction by instruction: its `RUN`s in a
chroot, its `WORKDIR`, its `COPY`s (the builder's binary is the static release binary given as
the argument), its `USER` and `ENV`. Then `ENTRYPOINT` + `CMD` start as that user, and the
checks run: `/healthz`, a page, a static file, a new session stored in the SQLite file under
`/data` (owned by the image's user), the image's own `HEALTHCHECK` command, and exit status 0 on
`SIGTERM`.

Tests here listen on 127.0.0.1 only, on a free port: the run sets `FLOWSERVER_PORT` and gives
`--host 127.0.0.1` where the image says 0.0.0.0 (check-docker-runtime.sh checks that it does).

Usage: run-runtime-stage.py STATIC_FLOWSERVER_BINARY   (as root: debootstrap and chroot)
"""
import json
import os
import pathlib
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
CACHE = pathlib.Path(os.environ.get("FLOWSERVER_RUNTIME_CACHE", pathlib.Path.home() / ".cache" / "flowserver"))
MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")

passed, failed = 0, 0


def check(description, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {description}" + (f" ({detail})" if detail else ""))


def runtime_stage():
    """The runtime stage's instructions, continuation lines joined: [(INSTRUCTION, arguments)]."""
    text = (ROOT / "Dockerfile").read_text()
    joined = re.sub(r"\\\n", " ", text)
    stages = re.split(r"^FROM ", joined, flags=re.M)
    last = "FROM " + stages[-1]
    instructions = []
    for line in last.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, arguments = line.partition(" ")
            instructions.append((keyword.upper(), arguments.strip()))
    return instructions


def debian_root(suite, directory):
    """A minbase root of `suite` in `directory`, from the cache when it has one."""
    tarball = CACHE / f"{suite}-minbase.tar.gz"
    directory.mkdir(parents=True)
    if tarball.exists():
        subprocess.run(["tar", "-xzf", str(tarball), "-C", str(directory)], check=True)
        return
    print(f"debootstrap --variant=minbase {suite} (cached afterwards in {tarball})")
    subprocess.run(["debootstrap", "--variant=minbase", suite, str(directory), MIRROR], check=True, stdout=subprocess.DEVNULL)
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-czf", str(tarball), "-C", str(directory), "."], check=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, data=None):
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def main(binary):
    instructions = runtime_stage()
    base = instructions[0][1].split()[0]  # debian:bookworm-slim
    suite = base.split(":")[1].removesuffix("-slim")
    work = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-runtime-"))
    root = work / "root"
    proc = root / "proc"
    server = None
    try:
        debian_root(suite, root)
        shutil.copy("/etc/resolv.conf", root / "etc" / "resolv.conf")
        subprocess.run(["mount", "-t", "proc", "proc", str(proc)], check=True)
        workdir, user, environment, entrypoint, command, healthcheck = "/", "root", {}, [], [], None
        for keyword, arguments in instructions[1:]:
            if keyword == "RUN":
                run = subprocess.run(["chroot", str(root), "/bin/sh", "-c", arguments], capture_output=True, text=True)
                check(f"RUN {arguments[:60]}…", run.returncode == 0, run.stderr[-400:])
            elif keyword == "WORKDIR":
                workdir = arguments
                (root / workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)
            elif keyword == "COPY":
                parts = arguments.split()
                if parts[0].startswith("--from="):
                    source, destination = pathlib.Path(binary), parts[2]
                else:
                    source, destination = ROOT / parts[0], parts[1]
                target = root / (destination if destination.startswith("/") else os.path.join(workdir, destination)).lstrip("/")
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, target, dirs_exist_ok=True)
                else:
                    shutil.copy2(source, target)
            elif keyword == "USER":
                user = arguments
            elif keyword == "ENV":
                environment.update(dict(pair.split("=", 1) for pair in shlex.split(arguments)))
            elif keyword == "ENTRYPOINT":
                entrypoint = json.loads(arguments)
            elif keyword == "CMD":
                command = json.loads(arguments)
            elif keyword == "HEALTHCHECK":
                healthcheck = json.loads(arguments[arguments.index("CMD") + 3:].strip())
        passwd = {line.split(":")[0]: line.split(":") for line in (root / "etc" / "passwd").read_text().splitlines()}
        check(f"the image's user {user} exists", user in passwd)
        uid, gid = passwd[user][2], passwd[user][3]
        check("the user is not root", uid != "0")

        port = free_port()
        environment.update({"FLOWSERVER_HOST": "127.0.0.1", "FLOWSERVER_PORT": str(port)})
        arguments = entrypoint + ["127.0.0.1" if argument == "0.0.0.0" else argument for argument in command]
        env = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", f"HOME={passwd[user][5]}"]
        env += [f"{name}={value}" for name, value in environment.items()]
        server = subprocess.Popen(
            ["chroot", f"--userspec={uid}:{gid}", str(root), "/usr/bin/env", "-i", *env, "/bin/sh", "-c",
             f"cd {shlex.quote(workdir)} && exec \"$@\"", "sh", *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        base_url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 15
        healthy = False
        while time.monotonic() < deadline and server.poll() is None and not healthy:
            try:
                healthy = get(base_url + "/healthz")[0] == 200
            except OSError:
                time.sleep(0.2)
        check("flowserver starts in the runtime stage and /healthz answers 200", healthy,
              server.stderr.read()[-600:] if server.poll() is not None else "")
        if healthy:
            status, page = get(base_url + "/onboarding/login")
            check("a page renders (the templates are there)", status == 200 and b"<html" in page, f"{status}")
            status, _ = get(base_url + "/public/site.css")
            check("a static file is served (the public files are there)", status == 200, f"{status}")
            status, _ = get(base_url + "/api/v1/sessions", data=b"")
            check("a new session is stored", status == 201, f"{status}")
            database = root / environment.get("FLOWSERVER_STORE", "sqlite:/data/flowserver.sqlite").split(":", 1)[1].lstrip("/")
            check(f"the SQLite file is under /data ({database.name})", database.exists())
            check("the SQLite file belongs to the image's user", database.exists() and str(database.stat().st_uid) == uid)
            if healthcheck:
                probe = [part.replace("8080", str(port)) for part in healthcheck]
                run = subprocess.run(["chroot", f"--userspec={uid}:{gid}", str(root), *probe], capture_output=True, text=True, timeout=10)
                check("the image's HEALTHCHECK command passes", run.returncode == 0, run.stderr[-300:])
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            code = "no exit within 15 s"
        check("SIGTERM stops it with exit status 0", code == 0, f"exit status {code}")
        server = None
    finally:
        if server and server.poll() is None:
            server.kill()
        subprocess.run(["umount", str(proc)], stderr=subprocess.DEVNULL)
        if not os.path.ismount(proc):  # never walk into a mounted /proc
            shutil.rmtree(work, ignore_errors=True)
    print(f"runtime stage: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
