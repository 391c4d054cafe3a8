"""Every slug a reader's address is built from is one the `<slug:...>` converter accepts
(ASCII letters, digits, hyphens, underscores), whichever door wrote it: a tag whose slug kept
an "é" made every page that links the tag answer 500 (NoReverseMatch)."""

import pytest
from django.apps import apps
from django.db import models
from django.db.models.signals import pre_save
from django.urls import get_resolver
from django.urls.converters import SlugConverter
from django.urls.resolvers import RoutePattern

from tags.models import Tag
from tests.factories import PaperFactory
from tests.helpers import token_client

pytestmark = pytest.mark.django_db

SLUG = SlugConverter.regex
HOSTILE_SLUGS = ["café-rl", "grpo-é", "日本語", "a b/c", "Ökonomie", "ﬁne-tuning", "-é-"]


def slug_fields():
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if isinstance(field, models.SlugField):
                yield model, field


def slug_routes(resolver=None, prefix=""):
    """Every route of the site, with the converters of its parameters."""
    for entry in (resolver or get_resolver()).url_patterns:
        pattern = entry.pattern
        if hasattr(entry, "url_patterns"):
            yield from slug_routes(entry, prefix + str(pattern))
        elif isinstance(pattern, RoutePattern):
            yield prefix + str(pattern), pattern.converters


def test_the_site_has_slug_fields_and_slug_routes():
    assert len(list(slug_fields())) >= 10
    assert sum(1 for _, converters in slug_routes() if "slug" in converters) >= 10


def test_every_route_taking_a_slug_uses_the_ascii_slug_converter():
    for route, converters in slug_routes():
        for name, converter in converters.items():
            if "slug" in name:
                assert converter.regex == SLUG, route


@pytest.mark.parametrize("value", HOSTILE_SLUGS)
def test_every_slug_field_is_saved_as_the_url_pattern_accepts(value):
    """Saving (the admin, the API, the importers and load_demo all save) normalises the slug."""
    import re

    for model, field in slug_fields():
        instance = model()
        setattr(instance, field.attname, value)
        pre_save.send(
            sender=model, instance=instance, raw=False, using="default", update_fields=None
        )
        saved = getattr(instance, field.attname)
        assert re.fullmatch(SLUG, saved), (model, field.name, saved)
        assert len(saved) <= field.max_length


def test_long_slugs_are_folded_within_the_field_length():
    for model, field in slug_fields():
        instance = model()
        setattr(instance, field.attname, "½" * field.max_length)
        pre_save.send(
            sender=model, instance=instance, raw=False, using="default", update_fields=None
        )
        assert len(getattr(instance, field.attname)) <= field.max_length


def test_a_folded_slug_does_not_take_another_rows_slug():
    Tag.objects.create(name="cafe rl", slug="cafe-rl")
    tag = Tag.objects.create(name="Cafe RL older", slug="café-rl")
    assert tag.slug != "cafe-rl"
    assert Tag.objects.filter(slug="cafe-rl").count() == 1


def assert_reader_pages_answer(client, paper):
    for url in ["/research/", "/tags/", paper.get_absolute_url(), "/research/?q=scaling", "/"]:
        response = client.get(url)
        assert response.status_code in (200, 301, 302), (url, response.status_code)
    for tag in Tag.objects.all():
        assert client.get(f"/tags/{tag.slug}/").status_code == 200, tag.slug


def test_a_tag_named_with_accents_through_the_api_keeps_pages_up(client, editor):
    api = token_client(editor)
    paper = PaperFactory(title="Scaling with accents")
    response = api.patch(
        f"/api/v1/papers/{paper.slug}/",
        {"tags": ["Café RL", "Ökonomie"], "version": paper.version},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert sorted(Tag.objects.values_list("slug", flat=True)) == ["cafe-rl", "okonomie"]
    assert_reader_pages_answer(client, paper)
    # The same name again, spelled differently, is the same tag.
    paper.tags.add("cafe rl")
    assert Tag.objects.count() == 2


def test_a_tag_with_no_ascii_letters_still_gets_a_working_address(client):
    paper = PaperFactory()
    paper.tags.add("日本語")
    paper.tags.add("中文")
    assert Tag.objects.count() == 2
    assert_reader_pages_answer(client, paper)


def test_a_non_ascii_slug_typed_in_the_tag_admin_is_a_form_error(client, editor):
    client.force_login(editor)
    paper = PaperFactory()
    response = client.post(
        "/admin/rlscaling/tag/add/", {"name": "grpo-é", "slug": "grpo-é", "display_name": ""}
    )
    assert response.status_code == 200
    assert "slug" in response.context["adminform"].form.errors
    assert not Tag.objects.exists()
    # A slug left for the admin to make from a name with an accent is folded to ASCII.
    response = client.post("/admin/rlscaling/tag/add/", {"name": "grpo-é", "slug": "grpo-e"})
    assert response.status_code == 302
    paper.tags.add(Tag.objects.get())
    client.logout()
    assert_reader_pages_answer(client, paper)


def test_a_tag_saved_with_a_unicode_slug_by_code_is_folded(client):
    """load_demo and the importers save models directly, without a form."""
    paper = PaperFactory()
    paper.tags.add(Tag.objects.create(name="grpo-é", slug="grpo-é"))
    assert Tag.objects.get().slug == "grpo-e"
    assert_reader_pages_answer(client, paper)


def test_every_admin_form_refuses_a_slug_its_address_would_not_take(rf, editor):
    from django.contrib import admin
    from django.core.exceptions import ValidationError

    editor.is_superuser = True
    request = rf.get("/admin/")
    request.user = editor
    checked = 0
    for model, model_admin in admin.site._registry.items():
        form = model_admin.get_form(request)
        for name, field in form.base_fields.items():
            model_field = next((f for f in model._meta.fields if f.name == name), None)
            if not isinstance(model_field, models.SlugField):
                continue
            for value in HOSTILE_SLUGS:
                with pytest.raises(ValidationError):
                    field.clean(value)
            checked += 1
    assert checked >= 8
