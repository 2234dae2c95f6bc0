"""A throwaway PostgreSQL cluster for the process tests: `initdb` in a temporary directory,
`pg_ctl` on a free port of 127.0.0.1 (as the `postgres` user when run as root), removed at the
end. The Python twin of Tests/ProcessTestSupport/PostgresCluster.swift."""
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile


class PostgresCluster:
    """`with PostgresCluster() as cluster:` — `cluster.url` is its test database for `--store`.
    Tests run it without `fsync`; `durable=True` keeps PostgreSQL's defaults (benchmarks)."""

    def __init__(self, durable=False):
        self.durable = durable
        versions = sorted(os.listdir("/usr/lib/postgresql")) if os.path.isdir("/usr/lib/postgresql") else []
        if not versions:
            raise RuntimeError("PostgreSQL is not installed (make test installs Debian's postgresql)")
        self.binaries = pathlib.Path(f"/usr/lib/postgresql/{versions[-1]}/bin")
        self.run_as = "postgres" if os.getuid() == 0 else None
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="flowserver-pg-"))
        self.url = f"postgres://flow:flow@127.0.0.1:{self.port}/flowtest"

    def __enter__(self):
        password = self.directory / "password"
        password.write_text("flow")
        if self.run_as:
            shutil.chown(self.directory, self.run_as)
            shutil.chown(password, self.run_as)
        self._tool("initdb", "-D", str(self.directory / "data"), "-U", "flow", "--pwfile", str(password), "-A", "md5", "--no-sync")
        self.start()
        self._tool("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "flow", "flowtest", environment={"PGPASSWORD": "flow"})
        return self

    def __exit__(self, *_):
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.directory, ignore_errors=True)

    def start(self):
        self._tool("pg_ctl", "-D", str(self.directory / "data"), "-l", str(self.directory / "log"), "-w", "-o",
                   f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1" + ("" if self.durable else " -c fsync=off"),
                   "start")

    def stop(self):
        """Stops the server as a crash would (`immediate`); `start()` brings it back."""
        self._tool("pg_ctl", "-D", str(self.directory / "data"), "-m", "immediate", "-w", "stop")

    def _tool(self, name, *arguments, environment=None):
        command = [str(self.binaries / name), *arguments]
        if self.run_as:
            command = ["/usr/sbin/runuser", "-u", self.run_as, "--", "/usr/bin/env",
                       *[f"{key}={value}" for key, value in (environment or {}).items()], *command]
        subprocess.run(command, check=True, capture_output=True, env={**os.environ, **(environment or {})})
