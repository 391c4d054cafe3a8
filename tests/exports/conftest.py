import pytest
from django.core.management import call_command

_demo_archive = {}


@pytest.fixture
def demo_archive(demo, tmp_path):
    """The demo's public dump, as `export_dump` writes it, in this test's tmp_path. It is
    exported once per test process and copied for each later test: every test starts from the
    same demo (what a test writes is rolled back), so the archives would be the same but for
    their timestamps, and an export of the whole demo is the dearest step of these tests."""
    if not _demo_archive:
        exported = tmp_path / "exported"
        exported.mkdir()
        call_command("export_dump", output=str(exported), verbosity=0)
        (path,) = exported.glob("rlscaling-dump-*.zip")
        _demo_archive.update(name=path.name, data=path.read_bytes())
    path = tmp_path / _demo_archive["name"]
    path.write_bytes(_demo_archive["data"])
    return path
