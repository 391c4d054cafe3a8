"""The field guide (home page) against the demo content of seed 001."""

import re

import pytest
from django.urls import reverse

from notes.models import CommunityPost, GuideSection, Question, ResearchNote
from publishing.models import Status
from tests.factories import (
    ClaimFactory,
    CommunityPostFactory,
    DimensionFactory,
    LayerFactory,
    QuestionFactory,
    ResearchNoteFactory,
)
from tests.helpers import HOME_QUERY_CEILING, inline_scripts, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def home(client, demo):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return response


def test_sections_appear_in_seed_order_with_their_numbers(home):
    html = home.content.decode()
    expected = [
        ("", "How reinforcement learning systems grow—and where they stop working."),
        ("01", "RL does not scale along one axis."),
        ("02", "Scale the loop, not one component."),
        ("03", "Find the binding constraint before adding pressure."),
        ("", "The RL Scaling Bottleneck Map"),
        ("04", "Scale exposes trade-offs, not one-way gains."),
        ("", "Where the interpretation is being challenged."),
        ("05", "Turn a scaling claim into a testable decision."),
        ("06", "Latest RL Scaling research"),
        ("07", "A concise RL scaling primer."),
    ]
    positions = [html.index(heading) for _, heading in expected]
    assert positions == sorted(positions)
    for number, heading in expected:
        if number:
            heading_at = html.index(heading)
            number_at = html.rindex(f'<span class="eyebrow__number">{number}', 0, heading_at)
            assert heading_at - number_at < 400, f"{number} is not next to {heading!r}"


def test_copy_comes_from_the_guide_sections(client, demo):
    GuideSection.objects.filter(key="dimensions").update(heading="An editor changed this.")
    text = text_of(client.get("/"))
    assert "An editor changed this." in text
    assert "RL does not scale along one axis." not in text


def test_dimensions_loop_and_layers(home):
    text = text_of(home)
    for name in ("Compute", "Data", "Environments", "Rollouts", "Rewards", "Agents"):
        assert name in text
    stages = ["Environment", "Rollouts", "Rewards", "Optimization", "Evaluation"]
    loop = home.content.decode().split('class="loop"')[1].split("</ol>")[0]
    assert [loop.index(f"<h3>{stage}</h3>") for stage in stages] == sorted(
        loop.index(f"<h3>{stage}</h3>") for stage in stages
    )
    assert loop.count("→") == 4  # an arrow between each pair of stages
    assert "First diagnostic question" in text
    assert "Workers idle, rollout throughput stalls" in text
    assert "Which resource is saturated, and does adding it increase useful experience" in text
    assert 'href="/bottlenecks/compute/"' in home.content.decode()


def test_bottleneck_map_card_has_its_steps_and_a_link(home):
    text = text_of(home)
    assert "A working framework" in text
    assert "The RL Scaling Bottleneck Map" in text
    assert "before spending the next unit of compute" in text
    steps = [
        "State the plateau",
        "List competing bottlenecks",
        "Choose a discriminating test",
        "Change one pressure at a time",
    ]
    assert [text.index(step) for step in steps] == sorted(text.index(step) for step in steps)
    assert re.search(r'href="/bottlenecks/">Read the full analysis →</a>', home.content.decode())


def test_recent_evidence_is_dated_by_the_newest_featured_note(home):
    text = text_of(home)
    assert "Recent evidence · Updated Sep 1, 2026" in text
    for value, label in [
        ("2.29×", "higher generation throughput"),
        ("29%", "lower GRPO time-to-target"),
        ("67%", "largest fall in solution coverage"),
        ("10.6%", "improvement over GRPO"),
    ]:
        assert re.search(rf"<dt>{re.escape(value)}</dt><dd>{label}", home.content.decode())
    assert text.count("Read the research note →") == 3
    # The caveat paragraph is computed from the claims' statuses and the notes' own caveats.
    assert "All three items report figures not yet reproduced" in text
    assert "carries its own caveat: “The authors describe this paper as work in progress.”" in text
    assert "Treat the reported numbers as results from particular setups" in text


def test_newest_featured_note_sets_the_updated_date(client, demo):
    ResearchNoteFactory(
        title="Fresh evidence", is_featured=True, published_at="2026-09-15T10:00:00Z"
    )
    text = text_of(client.get("/"))
    assert "Updated Sep 15, 2026" in text
    assert "Fresh evidence" in text


def test_community_posts_link_out_with_author_and_summary(home):
    html = home.content.decode()
    text = text_of(home)
    assert "LessWrong discussion · 2026" in text
    assert "By Steven Byrnes" in text
    assert "Some Interesting Papers on RLVR" in text
    assert html.count('rel="external noopener"') == CommunityPost.objects.published().count()
    assert 'href="https://www.lesswrong.com/search?query=Some%20Interesting%20Papers' in html


def test_team_questions_and_latest_research(home):
    text = text_of(home)
    for question in Question.objects.filter(kind="team"):
        assert question.question in text
    assert "Should we add more compute?" in text
    assert "View the full index →" in text
    latest = [
        "KnowGPO: Knowledge-Grouped Policy Optimization for Search Agents",
        "ActionOPD: Distilling Decisions, Not Tokens",
        "More Methods, Better Agents?",
        "A Privileged Teacher That Only Scores Cannot Search",
        "A Step Harder, Not a Step Too Far",
        "Branching On-Policy Distillation",
    ]
    assert [text.index(title) for title in latest] == sorted(text.index(t) for t in latest)
    assert "Zhejiang University" in text and "Fin.ai" in text


def test_faq_is_native_details_elements(home):
    html = home.content.decode()
    faqs = Question.objects.filter(kind="faq")
    assert html.count("<details>") == faqs.count() == 5
    assert "<summary>What is RL scaling?</summary>" in html
    assert '<span class="eyebrow__number">07</span><span>Frequently asked questions</span>' in html


def test_drafts_never_reach_the_home_page(client, demo):
    ResearchNoteFactory(title="Secret featured draft", is_featured=True, draft=True)
    CommunityPostFactory(title="Secret draft post", draft=True)
    QuestionFactory(question="Secret draft question?", draft=True)
    DimensionFactory(name="Secret dimension", draft=True)
    LayerFactory(name="Secret layer", draft=True)
    ResearchNote.objects.filter(slug="locked-at-the-entrance-open-inside").update(
        status=Status.DRAFT
    )
    text = text_of(client.get("/"))
    for secret in ("Secret featured draft", "Secret draft post", "Secret draft question?"):
        assert secret not in text
    assert "Secret dimension" not in text and "Secret layer" not in text
    assert "Locked at the Entrance" not in text


def test_home_works_without_any_content(client, db):
    response = client.get("/")
    assert response.status_code == 200
    assert "RL Scaling" in text_of(response)


def test_home_query_count_does_not_grow_with_content(client, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(HOME_QUERY_CEILING):
        client.get("/")
    for _ in range(10):
        note = ResearchNoteFactory(is_featured=True)
        ClaimFactory(figure="1×", unit="a figure").notes.add(note)
        CommunityPostFactory()
        QuestionFactory()
        QuestionFactory(kind=Question.Kind.TEAM)
    with django_assert_max_num_queries(HOME_QUERY_CEILING):
        client.get("/")


def test_pages_send_a_strict_content_security_policy(home):
    policy = home.headers["Content-Security-Policy"]
    assert "style-src 'self'" in policy
    assert "'unsafe-inline'" not in policy
    assert ' style="' not in home.content.decode()
    assert inline_scripts(home.content.decode()) == []


def test_home_page_shows_the_demo_content(client, demo):
    response = client.get("/")
    assert response.status_code == 200
    assert "Environments" in response.content.decode()


def guide_page(client):
    """The field guide's HTML (its nonce removed) and the SQL queries it ran."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("home"))
    assert response.status_code == 200
    return re.sub(r'nonce="[^"]*"', "", response.content.decode()), len(queries)


def test_the_guide_renders_the_same_on_every_miss_and_an_edit_shows_at_once(client, demo, settings):
    """Below the intro the field guide follows from the published content alone: every
    page-cache miss renders the same guide with the same queries until an editorial change."""
    from bottlenecks.models import Dimension

    settings.PAGE_CACHE_SECONDS = 0  # every request runs the view, as a page-cache miss does
    first, first_queries = guide_page(client)
    again, queries = guide_page(client)
    assert again == first and queries == first_queries
    dimension = Dimension.objects.published().first()
    assert dimension.name in first
    dimension.name = "Curriculum breadth"
    dimension.save()
    edited, queries = guide_page(client)
    assert "Curriculum breadth" in edited and queries == first_queries


def test_an_edited_guide_section_template_shows_at_once(client, demo, settings, tmp_path):
    """home.html includes its sections by a name it reads from the context: an edited section
    template shows at the next request, as runserver reloads it."""
    from django.template.autoreload import reset_loaders

    settings.PAGE_CACHE_SECONDS = 0
    (tmp_path / "home").mkdir()
    faq = tmp_path / "home" / "faq.html"
    faq.write_text('{% extends "home/section.html" %}{% block body %}Asked once{% endblock %}')
    templates = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**templates, "DIRS": [tmp_path, *templates["DIRS"]]}]
    reset_loaders()
    assert "Asked once" in guide_page(client)[0]
    faq.write_text('{% extends "home/section.html" %}{% block body %}Asked again{% endblock %}')
    reset_loaders()  # as runserver does when a template changes
    assert "Asked again" in guide_page(client)[0]
