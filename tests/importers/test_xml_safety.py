"""XML imports refuse DTDs and entities whatever the encoding: the old check looked for
"<!DOCTYPE" in the UTF-8 decoding, which a UTF-16 file (every other byte a NUL) slipped past,
and the parser then expanded its entities."""

import pytest
from django.core.management import CommandError, call_command

from citations.importers import BadImportFile, arxiv, parse
from citations.models import Paper

pytestmark = pytest.mark.django_db

LAUGHS = """<?xml version="1.0" encoding="{encoding}"?>
<!DOCTYPE feed [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<feed xmlns="http://www.w3.org/2005/Atom"><entry>
<id>http://arxiv.org/abs/2401.00001v1</id><title>&lol3;</title>
<published>2024-01-01T00:00:00Z</published></entry></feed>
"""
EXTERNAL = """<?xml version="1.0" encoding="{encoding}"?>
<!DOCTYPE feed SYSTEM "file:///etc/passwd">
<feed xmlns="http://www.w3.org/2005/Atom"></feed>
"""
ENCODINGS = [
    ("UTF-8", "utf-8"),
    ("UTF-16", "utf-16-le"),
    ("UTF-16", "utf-16-be"),
    ("UTF-16", "utf-16"),
]


@pytest.mark.parametrize("template", [LAUGHS, EXTERNAL])
@pytest.mark.parametrize(("declared", "codec"), ENCODINGS)
def test_a_dtd_is_refused_in_any_encoding(template, declared, codec):
    data = template.format(encoding=declared).encode(codec)
    with pytest.raises(BadImportFile, match="DTD"):
        arxiv.parse(data)
    with pytest.raises(BadImportFile, match="DTD"):
        arxiv.parse(data.decode("utf-8", "replace") if codec == "utf-8" else data)
    # Through the one entry point, as bytes: refused (not decoded to UTF-8 and expanded).
    with pytest.raises(BadImportFile):
        parse(data, "arxiv")


@pytest.mark.parametrize(("declared", "codec"), ENCODINGS)
def test_import_papers_refuses_a_utf16_atom_file_with_a_dtd(tmp_path, declared, codec):
    path = tmp_path / "feed.xml"
    path.write_bytes(LAUGHS.format(encoding=declared).encode(codec))
    with pytest.raises(CommandError):
        call_command("import_papers", str(path), "--format", "arxiv", "--apply")
    assert not Paper.objects.exists()


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-8-sig"])
def test_a_plain_feed_in_utf16_still_imports(codec):
    from tests.helpers import fixture_text

    text = fixture_text("arxiv_query.xml")
    text = text.replace('encoding="UTF-8"', 'encoding="UTF-16"') if "16" in codec else text
    records = parse(text.encode(codec), "arxiv")
    assert records and records == parse(fixture_text("arxiv_query.xml"), "arxiv")
