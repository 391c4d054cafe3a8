"""A null character (invisible, pasted from a PDF) cannot be stored: every admin form, plain or
editorial, its inline rows and the import pages refuse it naming the field that holds it, save
nothing and never answer with a 500."""

import html
import re

import pytest
from django import forms
from django.contrib import admin
from django.contrib.admin.helpers import AdminForm, InlineAdminFormSet
from django.forms.utils import pretty_name
from django.urls import NoReverseMatch, reverse
from django.utils.text import capfirst

from tests.helpers import text_of

pytestmark = pytest.mark.django_db

NAME = re.compile(r'\bname="([^"]+)"')
NUL = "before\x00after"


def text_fields(response):
    """The posted names of the page's visible text fields (in its forms and inline rows)."""
    return [
        form.add_prefix(name)
        for form in forms_in(response)
        for name, field in form.fields.items()
        if isinstance(field, forms.CharField) and not field.widget.is_hidden and not field.disabled
    ]


def form_data(page):
    """The form's current values, as a browser would post them (checkboxes left unticked)."""
    data = {}
    # The page's biggest form (the header's log-out button is a form too).
    body = max(re.findall(r"<form[^>]*method=\"post\".*?</form>", page, re.S | re.I), key=len)
    for tag in re.findall(r"<input[^>]*>", body):
        name, kind = NAME.search(tag), re.search(r'\btype="([^"]+)"', tag)
        kind = kind[1] if kind else "text"
        if name is None or "__prefix__" in name[1] or kind in ("submit", "file", "button"):
            continue
        if kind in ("checkbox", "radio") and "checked" not in tag:
            continue
        value = re.search(r'\bvalue="([^"]*)"', tag)
        data.setdefault(name[1], []).append(html.unescape(value[1]) if value else "")
    for select in re.findall(r"<select[^>]*>.*?</select>", body, re.S):
        name = NAME.search(select)
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', select)
        if name and "__prefix__" not in name[1]:
            data[name[1]] = [html.unescape(chosen[1]) if chosen else ""]
    return data


def forms_in(response):
    """Every form the page rendered (the admin's form and inline rows, a custom page's form)."""
    found = []
    for context in response.context:
        for value in context.flatten().values():
            if isinstance(value, AdminForm):
                found.append(value.form)
            elif isinstance(value, forms.BaseForm):
                found.append(value)
            elif isinstance(value, (list, tuple)) and value:
                for item in value:
                    if isinstance(item, InlineAdminFormSet):
                        found.extend(item.formset.forms)
    return found


def refusals(response):
    """{posted field name: (its label, its errors)} of the rendered forms."""
    named = {}
    for form in forms_in(response):
        for name, errors in form.errors.items():
            if name in form.fields:
                label = form.fields[name].label or pretty_name(name)
                named[form.add_prefix(name)] = (capfirst(str(label)), " ".join(errors))
    return named


def add_pages():
    for model, model_admin in admin.site._registry.items():
        try:
            url = reverse(
                f"admin:{model._meta.app_label}_{model._meta.model_name}_add",
                current_app=admin.site.name,
            )
        except NoReverseMatch:
            continue
        yield pytest.param(model, url, id=f"{model._meta.label}:{type(model_admin).__name__}")


@pytest.mark.parametrize(("model", "url"), list(add_pages()))
def test_a_null_character_is_refused_naming_its_field(admin_client, model, url):
    page = admin_client.get(url)
    if page.status_code != 200:
        pytest.skip(f"no add form ({page.status_code})")
    names = text_fields(page)
    if not names:
        pytest.skip("no text field")
    data = form_data(page.content.decode())
    for name in names:
        data[name] = [NUL]
    before = model._base_manager.count()

    response = admin_client.post(url, data)

    assert response.status_code == 200, text_of(response)[:1000]
    assert model._base_manager.count() == before  # nothing saved
    assert "Null characters are not allowed" not in response.content.decode()
    named = refusals(response)
    for name in names:
        assert name in named, f"{name}: not refused ({sorted(named)})"
        label, errors = named[name]
        assert f"{label} contains a null character" in errors, (name, errors)
