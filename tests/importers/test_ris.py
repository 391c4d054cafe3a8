"""RIS, as reference managers (Zotero, EndNote, Mendeley) export it: its reference types, its
"Last, First, Suffix" names, its dates to the precision given, venues, a report's or a thesis's
institution, DOIs and arXiv ids wherever they are; through every door the other formats have
(the command, the admin, the API), a bad record refused naming the record and the field."""

import datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from citations.importers import BadImportFile, detect_format, parse
from citations.importers.runs import ImportRun
from citations.models import Paper
from tests.helpers import IMPORT_FIXTURES, fixture_text

pytestmark = pytest.mark.django_db


def records():
    return parse(fixture_text("references.ris"), "ris")


def test_reference_types_titles_and_venues():
    art, report, conference, thesis, page = records()
    assert art.title == "The Art of Scaling Reinforcement Learning Compute for LLMs"
    assert [r.publication_type for r in records()] == [
        "article",
        "report",
        "conference",
        "",
        "other",
    ]
    assert art.venue == "Fixture Journal of Reasoning"  # T2
    assert conference.venue == "Proceedings of the Fixture Conference"  # JO
    assert report.title == "Schönheit & Zuverlässigkeit: RL at Scale"  # T1
    # A continued line is one abstract, its spacing collapsed.
    assert art.abstract == (
        "Reinforcement learning has become central to training large language models, yet "
        "there is no predictive methodology for scaling its compute."
    )
    assert page.url == "https://example.org/notes"


def test_names_suffixes_particles_and_organisations():
    art, report, *_ = records()
    assert art.authors == ["Devvrit Khatri", "Lovish Madaan", "Inderjit S. Dhillon"]
    assert report.authors == [
        "Robert Smith, Jr.",
        "Jan van der Berg",
        "Jörg Müller",
        "José de la Cruz",
        "DeepSeek-AI",
    ]


def test_dates_keep_their_precision():
    art, report, conference, thesis, page = records()
    assert (art.publication_date, art.date_precision) == (datetime.date(2025, 10, 15), "day")
    assert (report.publication_date, report.date_precision) == (datetime.date(2024, 7, 1), "month")
    assert (conference.publication_date, conference.date_precision) == (
        datetime.date(2022, 10, 19),
        "day",
    )
    assert (thesis.year, thesis.date_precision) == (2023, "year")
    assert thesis.publication_date == datetime.date(2023, 1, 1)


def test_identifiers_from_ur_do_and_n1():
    art, report, conference, thesis, page = records()
    assert art.identifiers == {"arxiv": "2510.13786"}
    assert art.arxiv_versions == ["v2"]
    assert report.identifiers == {"doi": "10.5555/rlscale.2024.17"}
    assert conference.identifiers == {"arxiv": "2210.10760"}  # the arXiv DataCite DOI
    assert thesis.identifiers == {"arxiv": "2301.00001"}  # "arXiv:..." in a note
    assert page.identifiers == {}


def test_institutions_of_reports_and_theses():
    art, report, conference, thesis, page = records()
    assert report.institution == "Example Institute"
    assert thesis.institution == "Example University"
    assert art.institution == ""


def test_what_is_not_imported_is_said():
    art = records()[0]
    assert "fields not imported: EP, SP, VL" in art.notes
    assert "keywords not imported: reinforcement learning; scaling" in art.notes


def test_the_format_is_guessed():
    assert detect_format(fixture_text("references.ris")) == "ris"
    assert detect_format("\n\nTY  - JOUR\nTI  - T\nER  - \n") == "ris"
    assert [r.title for r in parse(b"\xef\xbb\xbfTY  - GEN\r\nTI  - T\r\nER  -\r\n")] == ["T"]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("TY  - JOUR\nAU  - Smith, J.\nER  - \n", ["record 1 (line 1)", "no title"]),
        ("TY  - JOUR\nTI  - T\n", ["record 1 (line 1)", "ER"]),
        ("TY  - JOUR\nTI  - T\nTY  - JOUR\nTI  - U\nER  - \n", ["record 1 (line 1)", "ER"]),
        ("Title: T\nTY  - JOUR\nTI  - T\nER  - \n", ["line 1", "TY"]),
        ("TY  - JOUR\nTI  - T\nER  - \nstray text\n", ["line 4", "TY"]),
        ("TY  - JOUR\nTI  - T\nER  - \nTY  - " + "J" * 6000 + "\n", ["record 2 (line 4)", "TY"]),
        ("TY  - JOUR\nTI  - T\nID  - k1\nPY  - soon\nER  - \n", ["k1", "PY"]),
        ("TY  - JOUR\nTI  - T\nDA  - 2024/13/40\nER  - \n", ["record 1", "DA"]),
        ("TY  - JOUR\nTI  - T\nDO  - not a doi\nER  - \n", ["record 1", "DO"]),
        ("TY  - JOUR\nTI  - T\nUR  - https://arxiv.org/abs/2401.00001v5000\nER  - \n", ["UR"]),
        ("TY  - JOUR\nTI  - " + "t" * 3000 + "\nER  - \n", ["record 1", "TI"]),
        ("TY  - JOUR\nTI  - T\nAU  - a\x00b\nER  - \n", ["record 1", "AU"]),
        ("TY  - JOUR\nTI  - T\n" + "AU  - Smith, J.\n" * 2001 + "ER  - \n", ["record 1", "AU"]),
        ("TY  - JOUR\nTI  - T\nAB  - " + "a" * 200_000 + "\nER  - \n", ["record 1", "AB"]),
        ("TY  - JOUR\nTI  - T\nAB  - a\n" + "b\n" * 60_000 + "ER  - \n", ["record 1", "AB"]),
    ],
)
def test_a_bad_record_is_refused_naming_the_record_and_the_field(text, named):
    with pytest.raises(BadImportFile) as refused:
        parse(text, "ris")
    for word in named:
        assert word in str(refused.value), str(refused.value)


def test_an_unreadable_date_beside_a_year_is_said_not_refused():
    (record,) = parse("TY  - JOUR\nTI  - T\nPY  - 2024\nDA  - Jul 14\nER  - \n", "ris")
    assert (record.year, record.date_precision) == (2024, "year")
    assert "DA 'Jul 14' not read: the date is kept to its year" in record.notes


# -- every door -------------------------------------------------------------------------------


def test_the_command_imports_a_ris_file(roles, capsys):
    path = str(IMPORT_FIXTURES / "references.ris")
    call_command("import_papers", path, "--apply")
    assert Paper.objects.count() == 5
    assert Paper.objects.get(arxiv_id="2510.13786").venue == "Fixture Journal of Reasoning"
    capsys.readouterr()
    call_command("import_papers", path, "--format", "ris", "--apply")
    out = capsys.readouterr().out
    assert "create" not in out and "update" not in out
    assert Paper.objects.count() == 5


def test_the_command_names_a_bad_ris_record(roles, tmp_path):
    path = tmp_path / "bad.ris"
    path.write_text("TY  - JOUR\nTI  - T\nPY  - soon\nER  - \n")
    with pytest.raises(CommandError, match=r"bad\.ris: record 1 \(line 1\): PY"):
        call_command("import_papers", str(path), "--apply")
    assert not Paper.objects.exists()


def test_the_admin_imports_a_ris_upload(editor_client, roles):
    upload = SimpleUploadedFile("refs.ris", (IMPORT_FIXTURES / "references.ris").read_bytes())
    response = editor_client.post("/admin/citations/importrun/add/", {"file": upload})
    assert response.status_code == 302
    confirm = editor_client.get(response["Location"]).content.decode()
    assert "create  record 2 (line 20)" in confirm
    assert not Paper.objects.exists()
    editor_client.post(response["Location"])
    report = Paper.objects.get(title__startswith="Schönheit")
    assert (report.institution, report.publication_type) == ("Example Institute", "report")
    assert report.author_names[0] == "Robert Smith, Jr."


def test_the_admin_offers_ris_and_shows_a_bad_record(editor_client):
    form = editor_client.get("/admin/citations/importrun/add/").content.decode()
    assert '<option value="ris">' in form and "RIS" in form
    response = editor_client.post(
        "/admin/citations/importrun/add/", {"text": "TY  - JOUR\nTI  - T\n", "format": "ris"}
    )
    assert response.status_code == 200
    assert "record 1 (line 1)" in response.content.decode()
    assert not ImportRun.objects.exists()


def test_the_api_imports_ris(editor, roles):
    api = APIClient()
    api.force_authenticate(editor)
    response = api.post("/api/v1/imports/", {"text": fixture_text("references.ris")}, format="json")
    assert response.status_code == 200, response.json()
    # the format left out is guessed from the first `TY  -` line, and the dry run says so
    assert response.json()["format"] == "ris" and response.json()["plan"]["counts"] == {"create": 5}
    response = api.post(
        "/api/v1/imports/",
        {"text": fixture_text("references.ris"), "format": "ris", "apply": True},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert Paper.objects.count() == 5
    bad = api.post(
        "/api/v1/imports/",
        {"text": "TY  - JOUR\nTI  - T\nDO  - nope\nER  - \n", "format": "ris", "apply": True},
        format="json",
    )
    assert bad.status_code == 400 and "DO" in " ".join(bad.json()["errors"]["text"])
    assert Paper.objects.count() == 5
    schema = api.get("/api/v1/schema/", {"format": "json"}).json()
    request = schema["components"]["schemas"]["ImportRequestRequest"]["properties"]["format"]
    assert "ris" in str(request)
