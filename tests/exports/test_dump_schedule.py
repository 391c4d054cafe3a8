"""The daily dump starts itself (issue 17: "regenerated on a schedule by the task queue"): every
migrate (a deploy's, `make run`'s) queues a run unless one is waiting, so starting twice, or two
processes at once, leave one chain; each run writes the dump, prunes the old ones and queues
exactly one next run; a chain that broke is restarted."""

import datetime
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from web.dump import PREFIX, latest_dump
from web.dump_tasks import (
    DUMP_INTERVAL,
    KEEP_DUMPS,
    ensure_dump_scheduled,
    pending_runs,
    regenerate_dump,
)

ROOT = Path(__file__).resolve().parents[2]


def queued():
    return DBTaskResult.objects.filter(task_path=regenerate_dump.module_path)


@pytest.fixture
def dumps(tmp_path, settings):
    settings.DUMP_DIR = tmp_path / "dumps"
    settings.DUMP_SCHEDULE = True
    return settings.DUMP_DIR


@pytest.mark.django_db
def test_starting_twice_queues_one_run(dumps):
    call_command("migrate", verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("export_dump", schedule=True, verbosity=0)
    assert ensure_dump_scheduled() is None
    (run,) = queued()
    assert run.status == TaskResultStatus.READY
    # No dump yet: the first one is due at once.
    assert run.run_after <= timezone.now()


@pytest.mark.django_db
def test_the_data_page_says_when_no_dump_is_written_yet(dumps):
    about = Client().get("/about/data/").content.decode()
    assert "The first dump has not been written yet" in about


@pytest.mark.django_db
def test_migrate_queues_nothing_when_switched_off(dumps, settings):
    settings.DUMP_SCHEDULE = False
    call_command("migrate", verbosity=0)
    assert not queued().exists()


def old_dump(directory, day):
    path = directory / f"{PREFIX}{day}.zip"
    path.write_bytes(b"old")
    path.with_name(path.name + ".sha256").write_text(f"{'0' * 64}  {path.name}\n")
    return path


@pytest.mark.django_db
def test_a_run_writes_prunes_and_queues_exactly_one_next_run(demo, dumps):
    dumps.mkdir(parents=True)
    for day in range(1, KEEP_DUMPS + 3):
        old_dump(dumps, f"2020-01-{day:02}")
    ensure_dump_scheduled()
    run = queued().get()
    DBTaskResult.objects.filter(pk=run.pk).update(
        status=TaskResultStatus.RUNNING, started_at=timezone.now()
    )

    before = timezone.now()
    regenerate_dump.call()

    archives = sorted(dumps.glob(f"{PREFIX}*.zip"))
    assert len(archives) == KEEP_DUMPS
    assert archives[-1] == latest_dump() and archives[-1].name.endswith(
        f"{timezone.now():%Y-%m-%d}.zip"
    )
    assert len(list(dumps.glob("*.sha256"))) == KEEP_DUMPS
    (following,) = pending_runs(count_running=False)
    assert following.pk != run.pk
    assert before + DUMP_INTERVAL <= following.run_after <= timezone.now() + DUMP_INTERVAL

    response = Client().get("/data/dump/latest.zip")
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert hashlib.sha256(body).hexdigest() == response["X-Checksum-SHA256"]
    about = Client().get("/about/data/").content.decode()
    assert latest_dump().name in about and response["X-Checksum-SHA256"] in about


@pytest.mark.django_db
def test_a_run_already_waiting_is_not_doubled_by_a_run(demo, dumps):
    """`export_dump --schedule` by hand while a chain exists: the running one adds no second."""
    waiting = regenerate_dump.using(run_after=timezone.now() + DUMP_INTERVAL).enqueue()
    regenerate_dump.call()
    assert [run.pk for run in queued()] == [waiting.db_result.pk]


@pytest.mark.django_db
def test_a_failing_write_does_not_end_the_chain(dumps, monkeypatch):
    def broken(directory):
        raise OSError("disk full")

    monkeypatch.setattr("web.dump.write_dump", broken)
    with pytest.raises(OSError):
        regenerate_dump.call()
    assert pending_runs().count() == 1


@pytest.mark.django_db
def test_a_broken_chain_is_restarted_when_due(dumps):
    dumps.mkdir(parents=True)
    newest = old_dump(dumps, "2020-01-01")
    stale = time.time() - (DUMP_INTERVAL + datetime.timedelta(hours=2)).total_seconds()
    os.utime(newest, (stale, stale))
    # A run whose worker died long ago (still "running") does not count as the chain.
    dead = regenerate_dump.enqueue().db_result
    DBTaskResult.objects.filter(pk=dead.pk).update(
        status=TaskResultStatus.RUNNING, started_at=timezone.now() - datetime.timedelta(hours=3)
    )
    failed = regenerate_dump.enqueue().db_result
    DBTaskResult.objects.filter(pk=failed.pk).update(status=TaskResultStatus.FAILED)

    restarted = ensure_dump_scheduled()
    assert restarted is not None and restarted.task.run_after <= timezone.now()


@pytest.mark.django_db
def test_a_fresh_dump_puts_the_next_run_a_day_after_it(dumps):
    dumps.mkdir(parents=True)
    newest = old_dump(dumps, "2020-01-01")
    written = time.time() - 3600
    os.utime(newest, (written, written))
    run = ensure_dump_scheduled()
    expected = datetime.datetime.fromtimestamp(written, tz=datetime.UTC) + DUMP_INTERVAL
    assert abs(run.task.run_after - expected) < datetime.timedelta(seconds=1)
    # A run that is running now counts: a worker starting meanwhile queues no second one.
    DBTaskResult.objects.filter(pk=run.id).update(
        status=TaskResultStatus.RUNNING, started_at=timezone.now()
    )
    assert ensure_dump_scheduled() is None


HOLD_THE_LOCK = """
import sys
from django.db import transaction
from web.dump_tasks import lock_the_schedule, regenerate_dump
with transaction.atomic():
    lock_the_schedule()
    regenerate_dump.enqueue()
    print("locked", flush=True)
    sys.stdin.readline()
"""
CHECK_WHEN_TOLD = """
import sys
from django.core.management import call_command
print("ready", flush=True)
sys.stdin.readline()
call_command("export_dump", schedule=True)
"""


def database_url_for_subprocesses(tmp_path):
    """The test database, as the other processes reach it (an in-memory SQLite copied to a
    file: they cannot reach memory)."""
    if connection.vendor == "postgresql":
        s = connection.settings_dict
        return f"postgres://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"
    import sqlite3

    path = tmp_path / "db.sqlite3"
    connection.ensure_connection()
    with sqlite3.connect(path) as copy:
        connection.connection.backup(copy)
    return f"sqlite:///{path}"


def count_runs(url):
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            table = DBTaskResult._meta.db_table
            return db.execute(
                f"SELECT count(*) FROM {table} WHERE task_path = ?", [regenerate_dump.module_path]
            ).fetchone()[0]
    return queued().count()


# slow (`make test-all`, CI's slow step): two Django processes racing for the dump lock.
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_second_process_waits_for_the_first_and_queues_nothing(tmp_path):
    """Two app servers migrating (or workers starting) at once: the second one's check waits
    for the first one's enqueue to commit, then finds it. Without the lock it saw no run yet."""
    url = database_url_for_subprocesses(tmp_path)
    env = os.environ | {
        "DATABASE_URL": url,
        "DUMP_SCHEDULE": "1",
        "DUMP_DIR": str(tmp_path / "dumps"),
    }
    shell = [sys.executable, "manage.py", "shell", "--no-imports", "-c"]
    options = {"cwd": ROOT, "env": env, "stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
    with (
        subprocess.Popen([*shell, HOLD_THE_LOCK], text=True, **options) as first,
        subprocess.Popen([*shell, CHECK_WHEN_TOLD], text=True, **options) as second,
    ):
        try:
            assert first.stdout.readline().strip() == "locked"
            assert second.stdout.readline().strip() == "ready"
            second.stdin.write("go\n")
            second.stdin.flush()
            time.sleep(2)  # the second checks while the first has not committed yet
            first.stdin.write("commit\n")
            first.stdin.flush()
            assert first.wait(timeout=60) == 0
            assert second.wait(timeout=60) == 0
            assert "already queued" in second.stdout.read()
        finally:
            for process in (first, second):
                if process.poll() is None:
                    process.kill()
    assert count_runs(url) == 1
