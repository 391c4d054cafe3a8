"""arXiv ids and DOIs: every door (the admin form, the API, model validation as importers and
the demo loader use it) accepts, refuses and normalises them alike, because the rule lives on
the model (`Paper.clean()` with `citations/identifiers.py`)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from citations.models import Paper
from tests.factories import PaperFactory
from tests.helpers import admin_form_data

pytestmark = pytest.mark.django_db

REFUSED = None


@pytest.fixture
def editor_api(editor):
    client = APIClient()
    client.force_authenticate(editor)
    return client


# (field, what an editor types, what is stored: {field: value} or REFUSED)
IDENTIFIERS = [
    ("arxiv_id", "2510.13786", {"arxiv_id": "2510.13786"}),
    ("arxiv_id", "arXiv:2510.13786", {"arxiv_id": "2510.13786"}),
    ("arxiv_id", "2510.13786v2", {"arxiv_id": "2510.13786"}),
    ("arxiv_id", " https://arxiv.org/abs/2510.13786v3 ", {"arxiv_id": "2510.13786"}),
    ("arxiv_id", "https://arxiv.org/pdf/2510.13786v1.pdf", {"arxiv_id": "2510.13786"}),
    ("arxiv_id", "hep-th/9901001", {"arxiv_id": "hep-th/9901001"}),
    ("arxiv_id", "arXiv:hep-th/9901001v2", {"arxiv_id": "hep-th/9901001"}),
    ("arxiv_id", "not-an-id!!", REFUSED),
    ("arxiv_id", "25101.3786", REFUSED),
    ("doi", "10.1000/XYZ.123", {"doi": "10.1000/xyz.123"}),
    ("doi", "https://doi.org/10.1000/xyz.123", {"doi": "10.1000/xyz.123"}),
    ("doi", "doi:10.1000/xyz.123", {"doi": "10.1000/xyz.123"}),
    # arXiv's DataCite DOI names the arXiv paper: the paper gets that arXiv id too.
    (
        "doi",
        "10.48550/arXiv.2510.13786",
        {"doi": "10.48550/arxiv.2510.13786", "arxiv_id": "2510.13786"},
    ),
    (
        "doi",
        "https://doi.org/10.48550/arXiv.hep-th/9901001",
        {"doi": "10.48550/arxiv.hep-th/9901001", "arxiv_id": "hep-th/9901001"},
    ),
    ("doi", "nonsense", REFUSED),
    ("doi", "10.1000/with space", REFUSED),
]


def ids(row):
    return f"{row[0]}={row[1].strip()}" if isinstance(row, tuple) else None


def stored_identifiers(paper):
    return {"arxiv_id": paper.arxiv_id, "doi": paper.doi}


def expected_identifiers(stored):
    return {"arxiv_id": "", "doi": "", **stored}


def admin_add_paper(client, **values):
    """Submit the admin's "add paper" form as a browser would; the response."""
    form = admin_form_data(client.get(reverse("admin:citations_paper_add")), Paper)
    form.update({name: [value] for name, value in values.items()})
    return client.post(reverse("admin:citations_paper_add"), form)


def api_add_paper(client, **values):
    return client.post("/api/v1/papers/", values, format="json")


@pytest.mark.parametrize(("field", "typed", "stored"), IDENTIFIERS, ids=map(ids, IDENTIFIERS))
def test_admin_and_api_accept_refuse_and_normalise_identifiers_alike(
    editor_client, editor_api, field, typed, stored
):
    response = admin_add_paper(editor_client, title="Via the admin", slug="admin", **{field: typed})
    if stored is REFUSED:
        assert response.status_code == 200  # the form again, with the error on the field
        assert response.context["adminform"].form.errors[field]
        assert not Paper.objects.filter(slug="admin").exists()
    else:
        assert response.status_code == 302, response.context["adminform"].form.errors
        paper = Paper.objects.get(slug="admin")
        assert stored_identifiers(paper) == expected_identifiers(stored)
        paper.delete()  # the API's paper may take the same identifiers

    response = api_add_paper(editor_api, title="Via the API", slug="api", **{field: typed})
    if stored is REFUSED:
        assert response.status_code == 400
        assert field in response.json()["errors"]
        assert not Paper.objects.filter(slug="api").exists()
    else:
        assert response.status_code == 201, response.content
        assert stored_identifiers(Paper.objects.get(slug="api")) == expected_identifiers(stored)


@pytest.mark.parametrize(("field", "typed", "stored"), IDENTIFIERS, ids=map(ids, IDENTIFIERS))
def test_model_validation_normalises_for_importers_and_the_demo_loader(field, typed, stored):
    paper = Paper(title="Imported", slug="imported", **{field: typed})
    if stored is REFUSED:
        with pytest.raises(ValidationError) as refused:
            paper.full_clean()
        assert field in refused.value.message_dict
    else:
        paper.full_clean()
        assert stored_identifiers(paper) == expected_identifiers(stored)


@pytest.mark.parametrize(
    ("existing", "new", "field"),
    [
        ({"arxiv_id": "2510.13786"}, {"arxiv_id": "arXiv:2510.13786v2"}, "arxiv_id"),
        ({"doi": "10.1000/abc"}, {"doi": "https://doi.org/10.1000/ABC"}, "doi"),
        # The arXiv id and its DataCite DOI name the same paper, whichever is stored.
        ({"arxiv_id": "2510.13786"}, {"doi": "10.48550/arXiv.2510.13786"}, "doi"),
        ({"doi": "10.48550/arXiv.2510.13786"}, {"arxiv_id": "2510.13786"}, "arxiv_id"),
    ],
)
def test_an_identifier_another_paper_holds_is_refused_at_every_door(
    editor_client, editor_api, existing, new, field
):
    holder = Paper(title="Holder", slug="holder", **existing)
    holder.full_clean()
    holder.save()

    response = admin_add_paper(editor_client, title="Again", slug="again", **new)
    assert response.status_code == 200
    assert "“Holder”" in str(response.context["adminform"].form.errors[field])

    response = api_add_paper(editor_api, title="Again", slug="again", **new)
    assert response.status_code == 400
    assert "“Holder”" in response.json()["errors"][field][0]

    with pytest.raises(ValidationError) as refused:
        Paper(title="Again", slug="again", **new).full_clean()
    assert field in refused.value.message_dict
    assert Paper.objects.count() == 1


def test_a_datacite_doi_naming_another_arxiv_paper_is_refused(editor_api):
    response = api_add_paper(
        editor_api, title="T", arxiv_id="2510.13786", doi="10.48550/arXiv.2401.00001"
    )
    assert response.status_code == 400
    assert "2401.00001" in response.json()["errors"]["doi"][0]


def test_editing_a_paper_keeps_its_own_identifiers(editor_api):
    PaperFactory(slug="own", arxiv_id="2510.13786", doi="10.48550/arxiv.2510.13786")
    response = editor_api.patch(
        "/api/v1/papers/own/", {"arxiv_id": "arXiv:2510.13786v4"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["arxiv_id"] == "2510.13786"


def test_the_demo_loader_normalises_and_refuses_through_model_validation():
    from web.demo_content import DemoLoader

    typed = {"title": "D", "arxiv_id": "arXiv:2510.13786v2"}
    paper = DemoLoader().upsert(Paper, {"slug": "demo"}, typed)
    assert Paper.objects.get(slug="demo").arxiv_id == paper.arxiv_id == "2510.13786"
    again = DemoLoader(reset=True)
    again.upsert(Paper, {"slug": "demo"}, typed)
    assert again.changed == 0  # compared in normal form: a second run writes nothing
    with pytest.raises(ValidationError):
        DemoLoader().upsert(Paper, {"slug": "bad"}, {"title": "B", "arxiv_id": "not-an-id!!"})
