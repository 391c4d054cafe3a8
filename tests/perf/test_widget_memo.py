"""Form widgets rendered once per distinct widget (rlscaling/form_rendering.py, issue 15): a
filter form's selects were a third of an uncached page's time. The memo must never change
what a page shows: the same HTML as Django's own renderer, every option an editor adds, the
value a reader chose."""

import pytest
from django.forms.renderers import DjangoTemplates, get_default_renderer

from citations.filters import CitingPaperFilter, ResearchIndexFilter
from citations.models import Paper
from rlscaling.form_rendering import MAX_OPTIONS, MemoizedWidgetRenderer
from tests.factories import LayerFactory, PaperFactory
from tests.helpers import templates_rendered

pytestmark = pytest.mark.django_db

OPTION_TEMPLATE = "django/forms/widgets/select_option.html"


@pytest.fixture(autouse=True)
def no_page_cache(settings):
    settings.PAGE_CACHE_SECONDS = 0


@pytest.fixture(autouse=True)
def empty_memo():
    """The site's renderer starts empty: widgets an earlier test rendered are not counted."""
    get_default_renderer().memo.clear()


@pytest.fixture
def index():
    LayerFactory(slug="reward-layer", name="Reward layer")
    for n in range(3):
        PaperFactory(title=f"Indexed {n}", in_research_index=True).tags.add("grpo", f"tag-{n}")


def options_rendered(client, url):
    return templates_rendered(client, url, OPTION_TEMPLATE, statuses=(200, 400))


def test_a_filter_form_seen_before_renders_no_option_again(client, index):
    _, first = options_rendered(client, "/research/")
    html, second = options_rendered(client, "/research/?page=1")
    assert first > 5 and second == 0
    assert '<option value="tag-2">' in html


def test_an_option_an_editor_adds_and_the_value_a_reader_chose_show_at_once(client, index):
    options_rendered(client, "/research/")
    PaperFactory(title="New", in_research_index=True).tags.add("brand-new-tag")
    html, _ = options_rendered(client, "/research/")
    assert '<option value="brand-new-tag">' in html
    html, _ = options_rendered(client, "/research/?tag=tag-1")
    assert '<option value="tag-1" selected>' in html
    html, _ = options_rendered(client, "/research/?tag=tag-2")
    assert '<option value="tag-2" selected>' in html and '"tag-1" selected' not in html


def forms_to_compare():
    hub = PaperFactory(title="Hub")
    yield ResearchIndexFilter(None, queryset=Paper.objects.in_research_index()).form
    yield ResearchIndexFilter({"tag": "grpo", "year": "x"}, queryset=Paper.objects.all()).form
    summary = hub.citation_summary()
    yield CitingPaperFilter({"role": "nope"}, queryset=hub.citing_citations(), summary=summary).form


def test_the_memo_renders_what_django_renders(index):
    memo, plain = MemoizedWidgetRenderer(), DjangoTemplates()
    for form in forms_to_compare():
        form.is_valid()
        for field in form:
            form.renderer = plain
            expected = str(field)
            form.renderer = memo
            assert str(field) == expected
            assert str(field) == expected  # from the memo this time


def test_a_widget_with_very_many_options_is_not_kept():
    from django import forms

    class Big(forms.Form):
        choice = forms.ChoiceField(choices=[(str(n), str(n)) for n in range(MAX_OPTIONS + 1)])

    renderer = MemoizedWidgetRenderer()
    html = str(Big(renderer=renderer)["choice"])
    assert html.count("<option") == MAX_OPTIONS + 1
    assert not renderer.memo


def test_a_label_marked_safe_and_the_same_text_unmarked_are_different_widgets():
    """Text an editor's code marked safe is rendered as is; the same text from anywhere else
    is escaped, even when the safe one was rendered first."""
    from django import forms
    from django.utils.safestring import mark_safe

    class Safe(forms.Form):
        choice = forms.ChoiceField(choices=[("a", mark_safe("<b>bold</b>"))])

    class Plain(forms.Form):
        choice = forms.ChoiceField(choices=[("a", "<b>bold</b>")])

    renderer = MemoizedWidgetRenderer()
    assert "<b>bold</b>" in str(Safe(renderer=renderer)["choice"])
    assert "&lt;b&gt;bold&lt;/b&gt;" in str(Plain(renderer=renderer)["choice"])
