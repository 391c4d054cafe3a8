"""import_dump trusts nothing in the archive: only the public tables its README lists, each
row of the model its file names, every file checked against SHA256SUMS, every entry read in
bounded pieces, and never into a database that already holds content unless asked."""

import hashlib
import json
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from citations.models import Paper
from tests.exports.test_dump import empty_the_database

pytestmark = pytest.mark.django_db


def rewritten(path, out, change=None, extra=None):
    """A copy of the archive with `change(name, data)` applied and `extra` {name: data} added,
    its SHA256SUMS rewritten to match: a crafted archive, consistent with itself."""
    with zipfile.ZipFile(path) as source:
        root = source.namelist()[0].split("/")[0]
        files = {name.split("/", 1)[1]: source.read(name) for name in source.namelist()}
    for name in list(files):
        if change:
            files[name] = change(name, files[name])
    files.update(extra or {})
    files["SHA256SUMS"] = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n"
        for name, data in sorted(files.items())
        if name != "SHA256SUMS"
    ).encode()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in files.items():
            target.writestr(f"{root}/{name}", data)
    return out


ATTACKER = {
    "model": "auth.user",
    "fields": {
        "username": "intruder",
        "password": "pbkdf2_sha256$1$x$y",
        "is_superuser": True,
        "is_staff": True,
    },
}


def test_a_row_of_another_model_is_refused_and_nothing_is_loaded(demo_archive, tmp_path):
    def smuggle(name, data):
        if name == "jsonl/papers.jsonl":
            return data + (json.dumps(ATTACKER) + "\n").encode()
        return data

    crafted = rewritten(demo_archive, tmp_path / "crafted.zip", smuggle)
    empty_the_database()
    with pytest.raises(CommandError, match="auth.user"):
        call_command("import_dump", str(crafted), verbosity=0)
    assert not User.objects.filter(username="intruder").exists()
    assert not Paper.objects.exists()


def test_a_table_the_dump_does_not_publish_is_refused(demo_archive, tmp_path):
    extra = {"jsonl/users.jsonl": (json.dumps(ATTACKER) + "\n").encode()}
    crafted = rewritten(demo_archive, tmp_path / "crafted.zip", extra=extra)
    empty_the_database()
    with pytest.raises(CommandError, match="users"):
        call_command("import_dump", str(crafted), verbosity=0)
    assert not User.objects.filter(username="intruder").exists()


def test_a_file_missing_from_the_checksums_is_refused(demo_archive, tmp_path):
    crafted = tmp_path / "unlisted.zip"
    with zipfile.ZipFile(demo_archive) as source, zipfile.ZipFile(crafted, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name.endswith("SHA256SUMS"):
                data = b"".join(
                    line + b"\n" for line in data.splitlines() if b"papers.jsonl" not in line
                )
            target.writestr(name, data)
    empty_the_database()
    with pytest.raises(CommandError, match="papers.jsonl"):
        call_command("import_dump", str(crafted), verbosity=0)
    assert not Paper.objects.exists()


def test_an_entry_over_the_bound_is_refused_before_it_is_read(demo_archive, tmp_path, settings):
    settings.DUMP_MAX_ENTRY_BYTES = 1000
    empty_the_database()
    with pytest.raises(CommandError, match="larger than"):
        call_command("import_dump", str(demo_archive), verbosity=0)
    assert not Paper.objects.exists()


def test_a_database_with_content_is_refused_unless_asked(demo_archive):
    titles = sorted(Paper.objects.values_list("title", flat=True))
    Paper.objects.filter(pk=Paper.objects.first().pk).update(title="An editor's title")
    with pytest.raises(CommandError, match="already holds"):
        call_command("import_dump", str(demo_archive), verbosity=0)
    assert Paper.objects.filter(title="An editor's title").exists()

    call_command("import_dump", str(demo_archive), "--overwrite", verbosity=0)
    assert sorted(Paper.objects.values_list("title", flat=True)) == titles


def test_a_file_that_is_not_a_zip_is_one_sentence(tmp_path):
    bogus = tmp_path / "dump.zip"
    bogus.write_bytes(b"not a zip at all")
    with pytest.raises(CommandError, match="Cannot load"):
        call_command("import_dump", str(bogus), verbosity=0)
