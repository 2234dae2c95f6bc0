"""An app built from a text (the guide's, the README's), served as its reader would run it."""
import contextlib
import socket
import subprocess


@contextlib.contextmanager
def served(binary, package):
    """`binary --store memory --port <free port>` run in `package` (where its Templates/ are);
    yields the port once it listens, and checks that it stops cleanly on SIGTERM."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([binary, "--store", "memory", "--port", str(port)], cwd=package,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout.readline().startswith("listening on")
        yield port
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0
