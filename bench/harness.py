"""One way to serve the site for the benchmark, the soak, the API fuzzing and the outage test:
gunicorn with production settings (DJANGO_ENV=production, collected static files, a fresh
SECRET_KEY, its own cache namespace) on a free 127.0.0.1 port, ready once /healthz answers,
stopped with its whole process group.

    server = Server(database_url, redis_url=redis_url, workers=2)
    server.manage("migrate", "--noinput")      # same settings as the server, before or after start
    with server:
        status, headers, body = server.get("/research/")

The port is bound here and handed to gunicorn as a file descriptor (`--bind fd://N`), so no
other process can take it between choosing and serving. Loopback only.
"""

import atexit
import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "RESULTS.md"
HOST = "127.0.0.1"
POSTGRES = "postgres://postgres@127.0.0.1:5432"

# Load from one address would otherwise be throttled within seconds; the throttles still run
# (and cost what they cost), at rates no run reaches. Per second rather than per hour: DRF
# keeps every request of the period in the cache, and an hour of load would make that list
# tens of thousands of entries long, read and written on every request.
UNTHROTTLED = {
    "API_THROTTLE_ANON": "1000000/second",
    "API_THROTTLE_USER": "1000000/second",
    "API_THROTTLE_TOKEN": "1000000/second",
    "API_THROTTLE_BATCH": "1000000/second",
}


class Response(NamedTuple):
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)


def request(port, method, path, body=None, headers=None, timeout=30):
    """One request to 127.0.0.1:port; any status is an answer (never raises on 4xx/5xx)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        all_headers = {"Accept": "*/*", **(headers or {})}
        if payload is not None:
            all_headers["Content-Type"] = "application/json"
        connection.request(method, path, body=payload, headers=all_headers)
        response = connection.getresponse()
        return Response(response.status, dict(response.getheaders()), response.read())
    finally:
        connection.close()


def answers(host, port):
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((host, port)) == 0


def tail(path, lines=30):
    with contextlib.suppress(OSError):
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    return ""


# -- settings and static files ----------------------------------------------------------------


def production_env(database_url, *, redis_url="", site_url, static_root, overrides=None):
    """The environment of a production deployment on loopback, plain HTTP."""
    env = dict(os.environ)
    for name in ("DEBUG", "DJANGO_SETTINGS_MODULE"):
        env.pop(name, None)
    env.update(
        DJANGO_ENV="production",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS=HOST,
        SECURE_SSL_REDIRECT="0",  # no TLS proxy in front on loopback
        DATABASE_URL=database_url,
        REDIS_URL=redis_url or "",
        # A namespace of its own: nothing cached by another run (or another server over the
        # same Redis) is served here.
        CACHE_KEY_PREFIX=f"harness-{secrets.token_hex(4)}",
        STATIC_ROOT=str(static_root),
        SITE_URL=site_url,
        LOG_LEVEL="ERROR",
        **UNTHROTTLED,
    )
    env.update(overrides or {})
    return env


_static_root = None


def collected_static():
    """Static files collected once per process (the manifest storage of production needs them),
    into a temporary directory removed at exit."""
    global _static_root
    if _static_root is None:
        directory = Path(tempfile.mkdtemp(prefix="rlscaling-static-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        env = production_env("sqlite:///:memory:", site_url=f"http://{HOST}", static_root=directory)
        manage(env, "collectstatic", "--noinput", "-v0")
        _static_root = directory
    return _static_root


def manage(env, *args, stdin=None, timeout=900):
    """`manage.py ARGS` in this checkout with `env`; returns its standard output."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    ).stdout


# -- scratch databases -------------------------------------------------------------------------


@contextlib.contextmanager
def scratch_database(prefix, *, postgres=True):
    """The URL of a new, empty database, dropped afterwards: on the PostgreSQL server at
    127.0.0.1:5432 when `postgres` and it answers, else an SQLite file in a temporary directory."""
    if postgres and answers("127.0.0.1", 5432):
        import psycopg

        name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
        with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        try:
            yield f"{POSTGRES}/{name}"
        finally:
            with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as connection:
                connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    else:
        with tempfile.TemporaryDirectory(prefix=f"{prefix}-") as directory:
            yield f"sqlite:///{directory}/{prefix}.sqlite3"


EDITOR_SCRIPT = """
import sys
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from publishing.editors import EDITORS_GROUP

username, password = sys.stdin.read().split("\\n")[:2]
user = get_user_model().objects.create_user(username, password=password or None, is_staff=True)
user.groups.add(Group.objects.get(name=EDITORS_GROUP))
print("TOKEN " + Token.objects.create(user=user).key)
"""


def editor_token(env, username, password=""):
    """A new staff user in the Editors group, and its API token."""
    output = manage(env, "shell", "-v0", "-c", EDITOR_SCRIPT, stdin=f"{username}\n{password}\n")
    return next(line for line in output.splitlines() if line.startswith("TOKEN ")).split()[1]


# -- the server --------------------------------------------------------------------------------


class Server:
    """gunicorn serving this checkout on a free 127.0.0.1 port; a context manager."""

    def __init__(
        self,
        database_url,
        *,
        redis_url="",
        workers=2,
        timeout=60,
        env=None,
        log_path=None,
        ready_path="/healthz",
        ready_seconds=60,
    ):
        self.workers, self.timeout = workers, timeout
        self.ready_path, self.ready_seconds = ready_path, ready_seconds
        self._socket = socket.socket()
        self._socket.bind((HOST, 0))
        self.port = self._socket.getsockname()[1]
        self.base_url = f"http://{HOST}:{self.port}"
        # Removed when the Server object goes (the log stays readable after stop()); a finalizer
        # rather than TemporaryDirectory, whose implicit clean-up is a ResourceWarning.
        scratch = tempfile.mkdtemp(prefix="rlscaling-server-")
        weakref.finalize(self, shutil.rmtree, scratch, ignore_errors=True)
        self.log_path = Path(log_path or Path(scratch) / "gunicorn.log")
        self.env = production_env(
            database_url,
            redis_url=redis_url,
            site_url=self.base_url,
            static_root=collected_static(),
            overrides=env,
        )
        self.process = None

    def manage(self, *args, stdin=None, timeout=900):
        return manage(self.env, *args, stdin=stdin, timeout=timeout)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        command = [
            *(sys.executable, "-m", "gunicorn", "rlscaling.wsgi:application"),
            f"--bind=fd://{self._socket.fileno()}",
            *(f"--workers={self.workers}", f"--timeout={self.timeout}", "--graceful-timeout=5"),
            *("--log-level=warning", f"--error-logfile={self.log_path}"),
        ]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env,
                pass_fds=[self._socket.fileno()],
                start_new_session=True,  # its own process group, stopped as a whole
                stdout=log,
                stderr=log,
            )
        self._socket.close()  # gunicorn holds its own copy now
        deadline = time.monotonic() + self.ready_seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited early:\n{self.log_tail()}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                if self.get(self.ready_path, timeout=5).status == 200:
                    return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer {self.ready_path}:\n{self.log_tail()}")

    def stop(self):
        self._socket.close()
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)

    def request(self, method, path, body=None, headers=None, timeout=30):
        return request(self.port, method, path, body=body, headers=headers, timeout=timeout)

    def get(self, path, headers=None, timeout=30):
        return self.request("GET", path, headers=headers, timeout=timeout)

    def log_tail(self, lines=30):
        return tail(self.log_path, lines)

    def worker_pids(self):
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        with contextlib.suppress(OSError):
            return sorted(int(pid) for pid in children.read_text().split())
        return []

    def worker_peak_rss_mb(self):
        """VmHWM (peak resident set size) of each live worker, in MB."""
        peaks = []
        for pid in self.worker_pids():
            with contextlib.suppress(OSError):
                status = Path(f"/proc/{pid}/status").read_text()
                match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
                if match:
                    peaks.append(int(match.group(1)) / 1024)
        return peaks


def describe_database(url):
    """ "PostgreSQL 15.x" or "SQLite", for the record of a run."""
    if url.startswith("sqlite"):
        return "SQLite"
    with contextlib.suppress(Exception):
        import psycopg

        with psycopg.connect(url.replace("postgres://", "postgresql://")) as connection:
            version = connection.execute("SHOW server_version").fetchone()[0].split()[0]
            return f"PostgreSQL {version}"
    return "PostgreSQL"


def write_results_section(start, end, text):
    """Put `text` (from the `start` marker to the `end` marker and a newline) in place of the
    section of bench/RESULTS.md between those markers, or append it when there is none."""
    current = RESULTS.read_text() if RESULTS.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end) + r"\n?", re.S)
    if pattern.search(current):
        updated = pattern.sub(lambda _: text, current, count=1)
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    RESULTS.write_text(updated)
