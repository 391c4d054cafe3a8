"""`make run`: check the port, bring the database up to date without undoing editors' work,
then serve with runserver, with a task worker beside it once the project has a task queue, and
`publish_scheduled --every 60`, which makes scheduled publications and expiries as they come due.
The migrate also keeps the daily public dump queued (web/dump_tasks.py)."""

import errno
import os
import signal
import socket
import subprocess
import sys

from django.conf import settings
from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandError

# What every start runs before serving; tests/test_startup.py restarts exactly this.
STARTUP = [
    # One line per migration on a first run is noise beside the server's address.
    ("migrate", {"interactive": False, "verbosity": 0}),
    ("load_demo", {}),  # adds only what is missing: never overwrites an editor's change
]


def run_startup(stdout=None):
    for name, options in STARTUP:
        call_command(name, stdout=stdout, **options)
        if name == "migrate":
            (stdout or sys.stdout).write("Database schema is up to date.\n")


def port_problem(host, port):
    """None when host:port can be listened on, else a sentence saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return f"Port {port} on {host} is already taken (another `make run`?)."
            return f"Cannot listen on {host}:{port}: {error.strerror}."
    return None


def stop(signum, frame):
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = (
        "What `make run` runs: migrate, load_demo (adds only what is missing), then runserver "
        "on HOST:PORT, with `db_worker` beside it when django-tasks is installed and "
        "`publish_scheduled --every 60`."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))

    def handle(self, *args, host, port, **options):
        problem = port_problem(host, port)
        if problem:
            raise CommandError(
                f"{problem} Pick another port: `make run PORT={port + 1}` "
                f"(or stop what listens there: `ss -ltnp 'sport = :{port}'` shows it)."
            )
        run_startup(self.stdout)
        # A `kill` (SIGTERM) stops the server and the worker too, as Ctrl-C does.
        signal.signal(signal.SIGTERM, stop)
        # The server's settings derive SITE_URL from these (unless SITE_URL is set).
        env = os.environ | {"HOST": host, "PORT": str(port)}
        manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
        worker = None
        if "db_worker" in get_commands():
            self.stdout.write("Starting the task worker (manage.py db_worker) beside the server.")
            worker = subprocess.Popen([*manage, "db_worker"], env=env)
        self.stdout.write("Making scheduled changes every minute (manage.py publish_scheduled).")
        scheduler = subprocess.Popen([*manage, "publish_scheduled", "--every", "60"], env=env)
        self.stdout.write(f"Serving http://{host}:{port}/ (Ctrl-C stops it).")
        server = subprocess.Popen([*manage, "runserver", f"{host}:{port}"], env=env)
        try:
            returncode = server.wait()
        except KeyboardInterrupt:
            returncode = 0
        finally:
            stop_all(server, worker, scheduler)
        if returncode not in (0, -signal.SIGINT):
            raise CommandError(f"runserver stopped with exit code {returncode}.")


def stop_all(*processes):
    """SIGTERM, so runserver's reloader takes its child with it and the worker finishes its
    task; SIGKILL only for what is still there after 10 s."""
    running = [process for process in processes if process and process.poll() is None]
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
