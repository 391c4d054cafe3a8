"""`make run` restarts never undo editors' work: the start-up sequence (migrate + load_demo, as
`manage.py devserver` runs it) only adds demo rows that are missing; `load_demo --reset` says
what it would overwrite and asks first. Also: a taken port gets a clear message."""

import os
import socket
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from citations.models import Citation, Paper
from notes.models import ResearchNote
from results.models import Series
from tests.helpers import ART_OF_SCALING, token_client
from web.demo_content import DemoLoader
from web.management.commands.devserver import run_startup

pytestmark = pytest.mark.django_db
PAPER_URL = f"/api/v1/papers/{ART_OF_SCALING}/"


@pytest.fixture
def editor_api(editor):
    return token_client(editor)


def edit_through_the_api(editor_api):
    version = editor_api.get(PAPER_URL).json()["version"]
    response = editor_api.patch(
        PAPER_URL,
        {"summary": "An editor's summary.", "tags": ["edited-tag"], "version": version},
        format="json",
    )
    assert response.status_code == 200, response.content


def test_a_restart_keeps_an_api_edit(demo, editor_api):
    edit_through_the_api(editor_api)
    note = ResearchNote.objects.first()
    note.tags.clear()
    ResearchNote.objects.filter(pk=note.pk).update(title="An editor's title")
    versions = dict(Paper.objects.values_list("slug", "version"))

    run_startup()

    paper = APIClient().get(PAPER_URL).json()
    assert paper["summary"] == "An editor's summary."
    assert paper["tags"] == ["edited-tag"]
    note.refresh_from_db()
    assert note.title == "An editor's title"
    assert not note.tags.exists()
    assert dict(Paper.objects.values_list("slug", "version")) == versions


def test_a_restart_does_not_bring_back_what_an_editor_deleted(demo, editor_api):
    assert editor_api.delete(PAPER_URL).status_code == 204
    run_startup()
    assert not Paper.objects.filter(slug=ART_OF_SCALING).exists()


def test_demo_rows_that_are_missing_are_added(demo, capsys):
    """New demo content (never in this database, so no history) appears on the next start."""
    paper = Paper.objects.get(slug=ART_OF_SCALING)
    citing = Citation.objects.filter(cited_paper=paper).count()
    paper.delete()
    Paper.history.filter(slug=ART_OF_SCALING).delete()
    Citation.history.all().delete()

    call_command("load_demo")

    assert Citation.objects.filter(cited_paper__slug=ART_OF_SCALING).count() == citing
    assert "added" in capsys.readouterr().out


def test_reset_lists_what_it_overwrites_and_changes_nothing_when_refused(
    demo, editor_api, monkeypatch, capsys
):
    edit_through_the_api(editor_api)
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(CommandError, match="cancelled"):
        call_command("load_demo", "--reset")
    out = capsys.readouterr().out
    assert f"paper {ART_OF_SCALING}: summary, tags" in out
    assert Paper.objects.get(slug=ART_OF_SCALING).summary == "An editor's summary."


def test_reset_with_noinput_puts_the_demo_values_back(demo, editor_api, capsys):
    demo_summary = Paper.objects.get(slug=ART_OF_SCALING).summary
    edit_through_the_api(editor_api)
    ppo = "/api/v1/papers/proximal-policy-optimization-algorithms/"
    assert editor_api.delete(ppo).status_code == 204

    call_command("load_demo", "--reset", "--noinput")

    paper = Paper.objects.get(slug=ART_OF_SCALING)
    assert paper.summary == demo_summary
    assert "edited-tag" not in paper.tags.names()
    assert Paper.objects.filter(slug="proximal-policy-optimization-algorithms").exists()
    assert "1 rows overwritten" in capsys.readouterr().out


# slow (`make test-all`, CI's slow step): manage.py devserver in a subprocess.
@pytest.mark.slow
def test_a_taken_port_says_how_to_pick_another(tmp_path):
    # A database of its own: manage.py marks the working tree's db.sqlite3 changed when it ends.
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "manage.py", "devserver", "--port", str(port)],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode != 0
    assert f"Port {port} on 127.0.0.1 is already taken" in result.stderr
    assert f"make run PORT={port + 1}" in result.stderr


def test_create_editor_refuses_a_weak_password_and_makes_an_editor(monkeypatch, capsys):
    from django.contrib.auth import get_user_model

    from publishing.editors import EDITORS_GROUP

    monkeypatch.setenv("EDITOR_PASSWORD", "123")
    with pytest.raises(CommandError, match="too short"):
        call_command("create_editor", "--noinput", "--username", "alice")
    assert not get_user_model().objects.filter(username="alice").exists()

    answers = iter(["123", "123", "a-long-editor-passphrase", "a-long-editor-passphrase"])
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    call_command("create_editor", "--username", "alice", "--email", "a@example.org")
    alice = get_user_model().objects.get(username="alice")
    assert alice.is_staff and not alice.is_superuser
    assert alice.groups.filter(name=EDITORS_GROUP).exists()
    assert alice.check_password("a-long-editor-passphrase")
    assert "too short" in capsys.readouterr().err


@pytest.mark.parametrize("at", ["input", "getpass"])
@pytest.mark.parametrize("interruption", [EOFError, KeyboardInterrupt])
def test_create_editor_stopped_at_a_prompt_says_so_and_makes_nobody(monkeypatch, at, interruption):
    from django.contrib.auth import get_user_model

    def stop(prompt=""):
        raise interruption

    monkeypatch.setattr("builtins.input", stop if at == "input" else lambda prompt="": "bob")
    monkeypatch.setattr("getpass.getpass", stop)
    with pytest.raises(CommandError, match="No editor was created"):
        call_command("create_editor")
    assert not get_user_model().objects.filter(username="bob").exists()


# slow (`make test-all`, CI's slow step): manage.py migrate in a subprocess.
@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="a PostgreSQL server to name a missing database on",
)
def test_a_database_url_naming_a_missing_database_gets_one_sentence():
    base = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
    env = {**os.environ, "DATABASE_URL": f"{base}/rlscaling_no_such_database"}
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "rlscaling_no_such_database" in result.stderr
    assert "createdb" in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["load_demo"],
        ["generate_corpus", "--papers", "5", "--citations", "5", "--hubs", "1"],
    ],
)
def test_write_commands_make_cached_pages_stale(demo, command):
    from pagecache.caching import current_generation

    before = current_generation()
    call_command(*command)
    assert current_generation() != before


def test_a_reset_of_the_untouched_demo_overwrites_nothing(demo):
    """On every database: a series' points compare as a set, and read in one order (points
    without compute first, where PostgreSQL would put them last)."""
    plan = DemoLoader(reset=True).preview()
    assert plan.overwritten == {}
    series = Series.objects.get(slug="elbo-likelihood-diffusion-rl-geneval")
    assert [point.compute_reported for point in series.points.all()] == [None, 90]


# slow (`make test-all`, CI's slow step): a fresh interpreter that loads the whole site.
@pytest.mark.slow
def test_a_web_worker_does_not_load_scipy():
    """SciPy (about 75 MB with NumPy) is for the task worker's fits: a web worker that loads
    the site and every URL module stays without it (contract line 4, worker RSS)."""
    script = (
        "import sys, django; django.setup(); "
        "from django.urls import get_resolver; get_resolver().url_patterns; "
        "import rlscaling.wsgi, results.tasks, results.receivers; "
        "print(sorted(m for m in ('scipy', 'numpy') if m in sys.modules))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "rlscaling.settings"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
