"""The console shows what LOG_LEVEL asks for (WARNING by default) and nothing below it, whichever
library set its own logger's level: `make run` prints the server's request lines and warnings,
not a line for every task the worker starts and ends or for the reloader's start."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

# slow (`make test-all`, CI's slow step): a Django process of its own per test, for its console.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# What `manage.py db_worker` (verbosity 1) and runserver's reloader do to logging, then log.
SCRIPT = """
import logging
import django
django.setup()
from django_tasks_db.management.commands.db_worker import Command
Command().configure_logging(1)
logging.getLogger("django_tasks").info("Task id=1 state=SUCCESSFUL")
logging.getLogger("django_tasks_db").info("Starting worker")
logging.getLogger("django.utils.autoreload").info("Watching for file changes")
logging.getLogger("django_tasks").warning("the queue is stuck")
logging.getLogger("django.server").info('"GET / HTTP/1.1" 200')
"""


def console(**env):
    environment = {k: v for k, v in os.environ.items() if k != "LOG_LEVEL"}
    environment.update(DJANGO_SETTINGS_MODULE="rlscaling.settings", **env)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout + done.stderr


def test_the_console_leaves_out_info_lines_by_default():
    printed = console()

    assert "the queue is stuck" in printed
    assert '"GET / HTTP/1.1" 200' in printed  # runserver's request lines stay
    assert "SUCCESSFUL" not in printed
    assert "Starting worker" not in printed
    assert "Watching for file changes" not in printed


def test_log_level_info_shows_them():
    printed = console(LOG_LEVEL="INFO")

    assert "SUCCESSFUL" in printed and "Watching for file changes" in printed
