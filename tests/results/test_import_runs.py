"""Results imports through the admin and the API: upload, the dry run row by row, apply with
history, a re-run that changes nothing, bad rows named by line and column with nothing
written, large files on the task worker, and who may apply what."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from results import importer
from results.models import Result, ResultsImportRun, Series
from tests.factories import PaperFactory, UserFactory
from tests.helpers import token_client
from tests.results.factories import (
    BenchmarkFactory,
    ResultFactory,
    SeriesFactory,
    import_csv,
    import_row,
)

pytestmark = pytest.mark.django_db
ADD = "/admin/results/resultsimportrun/add/"
API = "/api/v1/results/import/"


@pytest.fixture
def sources():
    return BenchmarkFactory(slug="aime"), PaperFactory(slug="scalerl")


def good_csv():
    return import_csv(
        *[
            import_row(value=str(10 + i), compute=str(10 ** (i + 1)), location=f"Fig 1, {i}")
            for i in range(3)
        ]
    )


def bad_csv():
    return import_csv(
        import_row(location="Fig 1, 0"),
        import_row(location="Fig 1, 1", value="lots"),
    )


def upload(client, text, name="results.csv"):
    return client.post(ADD, {"file": SimpleUploadedFile(name, text.encode())})


def rows_and_history():
    return Series.objects.count(), Result.objects.count(), Result.history.count()


# -- the admin ----------------------------------------------------------------------------


def test_the_series_list_links_to_the_import(editor_client):
    page = editor_client.get("/admin/results/series/").content.decode()
    assert f'href="{ADD}"' in page


def test_an_upload_shows_each_rows_outcome_then_applies_with_history(
    editor_client, editor, sources
):
    response = upload(editor_client, good_csv())
    run = ResultsImportRun.objects.get()
    assert response["Location"] == f"/admin/results/resultsimportrun/{run.pk}/run/"
    page = editor_client.get(response["Location"]).content.decode()
    assert "line 2: new point in new series scalerl-8b" in page
    assert "line 4: new point in new series scalerl-8b" in page
    assert "Apply the import" in page and 'http-equiv="refresh"' not in page
    assert rows_and_history() == (0, 0, 0)

    editor_client.post(response["Location"])
    run.refresh_from_db()
    assert run.state == "done" and run.written == 3 and run.applied_by == editor
    series = Series.objects.get(slug="scalerl-8b")
    assert series.status == "draft" and series.points.count() == 3
    history = Result.history.all()
    assert history.count() == 3 and {h.history_user_id for h in history} == {editor.pk}
    # A run is applied once.
    editor_client.post(response["Location"])
    assert Result.objects.count() == 3


def test_the_same_file_again_is_unchanged_and_writes_nothing(editor_client, sources):
    editor_client.post(upload(editor_client, good_csv())["Location"])
    before = rows_and_history()
    again = upload(editor_client, good_csv())["Location"]
    assert "line 3: unchanged" in editor_client.get(again).content.decode()
    editor_client.post(again)
    assert ResultsImportRun.objects.first().written == 0
    assert rows_and_history() == before


def test_a_changed_value_is_shown_and_recorded(editor_client, editor, sources):
    editor_client.post(upload(editor_client, good_csv())["Location"])
    changed = good_csv().replace(",11,", ",12.5,")
    again = upload(editor_client, changed)["Location"]
    assert "line 3: changed: value 11.0 → 12.5" in editor_client.get(again).content.decode()
    editor_client.post(again)
    point = Result.objects.get(location="Fig 1, 1")
    assert point.value == 12.5
    latest = point.history.first()
    assert latest.history_user == editor and latest.history_change_reason == "Imported"


def test_a_bad_row_names_line_and_column_and_cannot_be_applied(editor_client, sources):
    response = upload(editor_client, bad_csv())
    page = editor_client.get(response["Location"]).content.decode()
    assert "line 3, column value: “lots” is not a number." in page
    assert "Apply the import" not in page
    editor_client.post(response["Location"])
    assert rows_and_history() == (0, 0, 0)


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"\xff\xfebenchmark", "not UTF-8"), (b"a,b\x00", "NUL")],
)
def test_a_file_that_is_no_csv_text_is_a_form_error(editor_client, content, message):
    response = editor_client.post(ADD, {"file": SimpleUploadedFile("x.csv", content)})
    assert response.status_code == 200 and message in response.content.decode()
    assert not ResultsImportRun.objects.exists()


def test_readers_cannot_import(client, reader, sources):
    client.force_login(reader)
    assert upload(client, good_csv()).status_code in (302, 403)
    assert not ResultsImportRun.objects.exists()


def test_a_contributor_adds_draft_series_but_not_points_readers_see(client, contributor, sources):
    client.force_login(contributor)
    location = upload(client, good_csv())["Location"]
    assert "Apply the import" in client.get(location).content.decode()
    client.post(location)
    assert Series.objects.get().status == "draft" and Result.objects.count() == 3

    live = SeriesFactory(slug="live-run", benchmark=sources[0], paper=sources[1])
    location = upload(client, import_csv(import_row(series="live-run")))["Location"]
    page = client.get(location).content.decode()
    assert "only editors with the publish permission" in page and "live-run" in page
    assert "Apply the import" not in page
    client.post(location)
    assert live.points.count() == 0
    assert ResultsImportRun.objects.first().state == "failed"


# The worker closes its database connections between tasks, as a real one must: the test
# commits instead of rolling back a transaction.
@pytest.mark.django_db(transaction=True)
@override_settings(
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
)
def test_a_large_file_is_planned_and_applied_by_the_worker(editor_client, monkeypatch):
    BenchmarkFactory(slug="aime")
    PaperFactory(slug="scalerl")
    monkeypatch.setattr(importer, "BACKGROUND_FROM", 2)
    location = upload(editor_client, good_csv())["Location"]
    run = ResultsImportRun.objects.get()
    assert run.state == "checking" and run.task_id and not run.report
    page = editor_client.get(location).content.decode()
    assert 'http-equiv="refresh"' in page and "Apply the import" not in page

    call_command("db_worker", "--batch", "--no-startup-delay")

    run.refresh_from_db()
    assert run.state == "previewed" and run.counts == {"new point": 3}
    page = editor_client.get(location).content.decode()
    assert "line 4: new point" in page and "Apply the import" in page
    assert 'http-equiv="refresh"' not in page

    editor_client.post(location)
    run.refresh_from_db()
    assert run.state == "queued" and not Result.objects.exists()
    assert 'http-equiv="refresh"' in editor_client.get(location).content.decode()

    call_command("db_worker", "--batch", "--no-startup-delay")

    run.refresh_from_db()
    assert run.state == "done" and run.written == 3 and Result.objects.count() == 3
    assert Result.history.count() == 3


# -- the API ------------------------------------------------------------------------------


def post_csv(client, text, query=""):
    return client.post(f"{API}{query}", text.encode(), content_type="text/csv")


def test_an_api_dry_run_answers_the_plan_and_writes_nothing(editor, sources):
    answer = post_csv(token_client(editor), good_csv())
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["rows"][0] == {"line": 2, "outcome": "new point in new series scalerl-8b"}
    assert body["counts"] == {"new point": 3} and body["errors"] == []
    assert rows_and_history() == (0, 0, 0) and not ResultsImportRun.objects.exists()


def test_an_api_apply_writes_with_history_and_a_rerun_changes_nothing(editor, sources):
    client = token_client(editor)
    answer = post_csv(client, good_csv(), "?dry_run=false")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["state"] == "done" and body["written"] == 3
    assert client.get(body["url"]).json()["id"] == body["id"]
    assert {h.history_user_id for h in Result.history.all()} == {editor.pk}
    before = rows_and_history()
    again = post_csv(client, good_csv(), "?dry_run=false").json()
    assert again["written"] == 0 and again["counts"] == {"unchanged": 3}
    assert rows_and_history() == before


def test_an_api_multipart_upload_is_the_same_import(editor, sources):
    upload_file = SimpleUploadedFile("r.csv", good_csv().encode(), content_type="text/csv")
    answer = token_client(editor).post(f"{API}?dry_run=false", {"file": upload_file})
    assert answer.status_code == 201, answer.content
    assert answer.json()["name"] == "r.csv" and Result.objects.count() == 3


def test_an_api_bad_row_is_a_400_naming_line_and_column_and_writes_nothing(editor, sources):
    for query in ("", "?dry_run=false"):
        answer = post_csv(token_client(editor), bad_csv(), query)
        assert answer.status_code == 400
        assert answer.json()["errors"]["rows"] == [
            {"line": 3, "column": "value", "message": "“lots” is not a number."}
        ]
    assert rows_and_history() == (0, 0, 0) and not ResultsImportRun.objects.exists()


@pytest.mark.parametrize(
    ("query", "body", "field"),
    [
        ("?dry_run=maybe", None, "dry_run"),
        ("?apply=true", None, "apply"),
        ("", b"", "body"),
        ("", b"\xff\xfe", None),
    ],
)
def test_api_bad_requests_are_400s(editor, sources, query, body, field):
    content = good_csv().encode() if body is None else body
    answer = token_client(editor).post(f"{API}{query}", content, content_type="text/csv")
    assert answer.status_code == 400, answer.content
    if field:
        assert field in answer.json()["errors"]
    assert rows_and_history() == (0, 0, 0)


def test_api_permissions(contributor, reader, sources):
    assert post_csv(APIClient(), good_csv()).status_code == 401
    assert post_csv(token_client(reader), good_csv()).status_code == 403
    client = token_client(contributor)
    assert post_csv(client, good_csv(), "?dry_run=false").status_code == 201
    assert Series.objects.get().status == "draft"
    live = SeriesFactory(slug="live-run", benchmark=sources[0], paper=sources[1])
    ResultFactory(series=live, location="Table 9")
    refused = post_csv(client, import_csv(import_row(series="live-run")), "?dry_run=false")
    assert refused.status_code == 403 and "live-run" in refused.json()["detail"]
    assert live.points.count() == 1


@pytest.mark.django_db(transaction=True)
@override_settings(
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
)
def test_an_api_large_file_is_202_with_a_run_to_poll(monkeypatch):
    BenchmarkFactory(slug="aime")
    PaperFactory(slug="scalerl")
    editor = UserFactory(editor=True)
    monkeypatch.setattr(importer, "BACKGROUND_FROM", 2)
    client = token_client(editor)
    answer = post_csv(client, good_csv(), "?dry_run=false")
    assert answer.status_code == 202, answer.content
    run = answer.json()
    assert run["state"] == "queued" and not Result.objects.exists()
    call_command("db_worker", "--batch", "--no-startup-delay")
    polled = client.get(run["url"]).json()
    assert polled["state"] == "done" and polled["written"] == 3
    assert "line 4: new point" in polled["report"]


def test_the_schema_declares_the_import_with_json_and_multipart_bodies():
    schema = APIClient().get("/api/v1/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/results/import/"]["post"]
    assert set(operation["requestBody"]["content"]) == {"application/json", "multipart/form-data"}
    assert {"200", "201", "202", "400"} <= set(operation["responses"])
    assert "dry_run" in {p["name"] for p in operation["parameters"]}


def test_an_api_json_text_is_the_same_import_and_a_bad_body_is_a_400(editor, sources):
    client = token_client(editor)
    answer = client.post(f"{API}?dry_run=false", {"text": good_csv()}, format="json")
    assert answer.status_code == 201, answer.content
    assert Result.objects.count() == 3
    for body in ({"text": 3}, {"file": "x"}, ["text"]):
        bad = client.post(API, body, format="json")
        assert bad.status_code == 400 and "text" in bad.json()["errors"], body
    assert Result.objects.count() == 3
