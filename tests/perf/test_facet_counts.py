"""Stored counts of published papers by year, tag and layer (citations/stats/facet_counts.py, issue
15): right after every kind of change, and read by the research index, the Bottleneck Map and
the API's `group_by=year` / `group_by=layer` instead of a count over the paper table."""

import datetime
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Count
from django.db.models.functions import ExtractYear, TruncQuarter
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from apikit.facets import GroupByMixin
from bench.openalex_sample import generate
from bottlenecks.models import Layer
from citations.api.views import PaperViewSet
from citations.dates import known_year_expression
from citations.importers.bulk import bulk_import
from citations.merging import merge_papers, undo_merge
from citations.models import DatePrecision, Paper, TaggedPaper
from citations.stats.facet_counts import (
    ALL,
    INDEX,
    LAYER,
    LAYER_QUARTER,
    NO_LAYER,
    PUBLIC,
    TAG,
    YEAR,
    PaperFacetCount,
    recount_paper_facets,
)
from evidence.models import EvidenceTimeline
from publishing.management.commands.publish_scheduled import publish_scheduled
from tags.models import Tag
from tests.factories import CitationRoleFactory, LayerFactory, PaperFactory
from tests.helpers import at

pytestmark = pytest.mark.django_db
HOUR = datetime.timedelta(hours=1)


def expected_counts():
    """The counts as plain queries over the papers work them out now."""
    index, public = Paper.objects.in_research_index(), Paper.objects.published()
    found = {(INDEX, ALL, 0): index.count(), (PUBLIC, ALL, 0): public.count()}
    tagged = TaggedPaper.objects.filter(content_object__in=index).values_list("tag")
    for tag, n in tagged.annotate(n=Count("*")).order_by():
        found[(INDEX, TAG, tag)] = n
    dated = index.exclude(date_precision=DatePrecision.UNKNOWN).exclude(publication_date=None)
    years = dated.annotate(y=ExtractYear("publication_date")).values_list("y")
    for year, n in years.annotate(n=Count("pk")).order_by():
        found[(INDEX, YEAR, year)] = n
    # A year only where it is a fact: a placeholder date counts with the undated (0).
    years = public.annotate(y=known_year_expression()).values_list("y")
    for year, n in years.annotate(n=Count("pk")).order_by():
        found[(PUBLIC, YEAR, year or 0)] = n
    for scope, papers in ((INDEX, index), (PUBLIC, public)):
        on_layers = Paper.layers.through.objects.filter(paper__in=papers).values_list("layer")
        for layer, n in on_layers.annotate(n=Count("*")).order_by():
            found[(scope, LAYER, layer)] = n
    shown = Layer.objects.published()
    found[(PUBLIC, NO_LAYER, 0)] = public.exclude(layers__in=shown).count()
    found = {(*key, 0): n for key, n in found.items()}
    # A quarter only for a date known to the day or the month.
    dated = Paper.layers.through.objects.filter(
        paper__in=public.with_known_date().exclude(date_precision=DatePrecision.YEAR)
    )
    quarters = dated.annotate(q=TruncQuarter("paper__publication_date")).values_list("layer", "q")
    for layer, quarter, n in quarters.annotate(n=Count("*")).order_by():
        if isinstance(quarter, datetime.datetime):
            quarter = quarter.date()
        found[(PUBLIC, LAYER_QUARTER, layer, quarter.year * 4 + (quarter.month - 1) // 3)] = n
    return {key: n for key, n in found.items() if n}


def stored_counts():
    rows = PaperFacetCount.objects.filter(count__gt=0).values_list(
        "scope", "dimension", "value", "quarter", "count"
    )
    return {tuple(row[:4]): row[4] for row in rows}


def assert_counts_right():
    assert stored_counts() == expected_counts()


def test_counts_follow_edits_tags_layers_publication_and_deletes():
    rollouts, rewards = LayerFactory(), LayerFactory()
    papers = [
        PaperFactory(publication_date=datetime.date(2024, 5, 1)),
        PaperFactory(publication_date=datetime.date(2025, 1, 2)),
        PaperFactory(publication_date=None),
        PaperFactory(in_research_index=False, publication_date=datetime.date(2023, 3, 3)),
    ]
    draft = PaperFactory(draft=True, publication_date=datetime.date(2022, 1, 1))
    papers[0].tags.add("grpo", "ppo")
    papers[1].tags.add("grpo")
    draft.tags.add("grpo")
    papers[0].layers.add(rollouts, rewards)
    rollouts.papers.add(papers[1], papers[3], draft)  # from the layer's side
    assert_counts_right()
    assert stored_counts()[(INDEX, TAG, Tag.objects.get(name="grpo").pk, 0)] == 2
    assert stored_counts()[(PUBLIC, NO_LAYER, 0, 0)] == 1

    edited = Paper.objects.get(pk=papers[1].pk)  # as loaded from the database
    edited.publication_date = datetime.date(2021, 6, 6)
    edited.save()
    assert_counts_right()
    edited.date_precision = DatePrecision.UNKNOWN  # the year is no longer a fact
    edited.in_research_index = False
    edited.save()
    assert_counts_right()
    draft.status = "published"  # published by a save
    draft.save()
    assert_counts_right()
    papers[0].tags.remove("ppo")
    papers[1].tags.set(["ppo", "new-tag"])
    papers[2].tags.add("grpo")
    assert_counts_right()
    papers[0].layers.remove(rewards)
    rollouts.papers.remove(papers[3])
    assert_counts_right()
    rewards.papers.add(papers[2])
    rollouts.papers.clear()
    assert_counts_right()
    papers[2].layers.clear()
    assert_counts_right()

    rewards.papers.add(*papers)
    rewards.status = "draft"  # a layer taken down: its papers bear on no published layer
    rewards.save()
    assert_counts_right()
    Layer.objects.filter(pk=rewards.pk).publish()  # a bulk change, from the layer's side
    assert_counts_right()
    Layer.objects.filter(pk=rewards.pk).unpublish()
    assert_counts_right()
    Paper.objects.filter(pk__in=[papers[0].pk, draft.pk]).unpublish()  # a bulk change
    assert_counts_right()
    Paper.objects.filter(pk=papers[0].pk).publish()
    assert_counts_right()

    papers[2].delete()
    assert_counts_right()
    Tag.objects.get(name="grpo").delete()
    assert_counts_right()
    rollouts.papers.add(papers[0])
    rollouts.delete()
    assert_counts_right()
    assert not PaperFacetCount.objects.filter(count__lt=0).exists()


def test_a_recount_works_its_counts_out_afresh_so_no_error_outlives_it():
    """The counts an edit moves are counted again from the papers, not moved by a difference:
    whatever left them wrong (SQL outside the ORM, a crash between two writes), the next edit
    that moves a count puts it right, and a paper's publication or date moves them all."""
    layer = LayerFactory()
    papers = [PaperFactory(publication_date=datetime.date(2020 + i, 1, 1)) for i in range(3)]
    papers[0].tags.add("grpo")
    papers[1].layers.add(layer)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {PaperFacetCount._meta.db_table}")
    papers[2].tags.add("grpo")
    assert stored_counts()[(INDEX, TAG, Tag.objects.get(name="grpo").pk, 0)] == 2
    papers[2].layers.add(layer)
    assert stored_counts()[(PUBLIC, LAYER, layer.pk, 0)] == 2
    papers[2].publication_date = datetime.date(2019, 1, 1)
    papers[2].save()
    assert_counts_right()


def test_a_new_paper_counts_again_only_what_it_can_move():
    """A new paper has no tags or layers yet (they come after its save, each with its own
    recount): its save counts the totals, its year and the papers on no layer again, not
    every stored figure, so adding a paper (the admin, an import's saves) does not count the
    whole table. A figure of another year is left as it was; every figure it moves is right."""
    layer = LayerFactory()
    PaperFactory(publication_date=datetime.date(2020, 1, 1)).layers.add(layer)
    PaperFactory(publication_date=datetime.date(2021, 1, 1)).tags.add("grpo")
    PaperFacetCount.objects.filter(scope=PUBLIC, dimension=YEAR, value=2020).update(count=99)
    PaperFactory(publication_date=datetime.date(2024, 3, 1))
    PaperFactory(publication_date=None)
    PaperFactory(publication_date=datetime.date(2021, 5, 1), date_precision=DatePrecision.UNKNOWN)
    PaperFactory(draft=True, publication_date=datetime.date(2021, 1, 1))
    stored, expected = stored_counts(), expected_counts()
    assert stored.pop((PUBLIC, YEAR, 2020, 0)) == 99
    assert expected.pop((PUBLIC, YEAR, 2020, 0)) == 1
    assert stored == expected


def test_counts_follow_scheduled_publication_and_expiry():
    now = timezone.now()
    layer = LayerFactory(published_at=now + 3 * HOUR)  # appears later
    PaperFactory(publication_date=datetime.date(2020, 1, 1))
    coming = PaperFactory(publication_date=datetime.date(2019, 1, 1), published_at=now + HOUR)
    coming.tags.add("grpo")
    going = PaperFactory(publication_date=datetime.date(2018, 1, 1))
    going.unpublish_at = now + 2 * HOUR
    going.save()
    going.layers.add(layer)
    assert_counts_right()
    for hours in (1, 2, 3):
        with at(now + hours * HOUR + datetime.timedelta(seconds=1)):
            publish_scheduled()  # `manage.py publish_scheduled`, run every minute
            assert_counts_right()
    assert (INDEX, YEAR, 2019, 0) in stored_counts()
    assert (INDEX, YEAR, 2018, 0) not in stored_counts()


def test_counts_follow_a_merge_and_its_undo():
    layer = LayerFactory()
    keep = PaperFactory(publication_date=None)
    other = PaperFactory(publication_date=datetime.date(2024, 2, 2))
    other.tags.add("grpo")
    other.layers.add(layer)
    assert_counts_right()
    merge = merge_papers(keep, other)
    assert_counts_right()
    assert stored_counts()[(INDEX, ALL, 0, 0)] == 1
    undo_merge(merge)
    assert_counts_right()
    assert stored_counts()[(INDEX, ALL, 0, 0)] == 2


@pytest.mark.parametrize("publish", [True, False])
def test_counts_are_right_after_bulk_imports(publish):
    for slug in ("background", "method", "comparison", "extension"):
        CitationRoleFactory(slug=slug, name=slug.title())
    PaperFactory(publication_date=datetime.date(2024, 1, 1)).tags.add("grpo")
    out = io.StringIO()
    generate(out, 30, 120, seed=5, outside_share=0.1)
    bulk_import([("", io.StringIO(out.getvalue()))], apply=True, publish=publish, batch_size=7)
    assert_counts_right()
    assert stored_counts()[(PUBLIC, ALL, 0, 0)] == (31 if publish else 1)


def test_counts_are_right_after_the_corpus_generator_and_a_full_recount():
    call_command("generate_corpus", papers=60, citations=200, seed=3, stdout=io.StringIO())
    assert_counts_right()
    before = stored_counts()
    PaperFacetCount.objects.all().delete()  # what SQL outside the ORM could leave
    call_command("recount_citations", stdout=io.StringIO())
    assert stored_counts() == before
    recount_paper_facets()  # idempotent
    assert stored_counts() == before


def paper_table_queries(queries):
    """Queries that read the paper table itself (the stored counts are their own table)."""
    return [q["sql"] for q in queries.captured_queries if 'FROM "citations_paper"' in q["sql"]]


def test_the_research_index_reads_its_total_and_choices_from_the_stored_counts(client, demo):
    """Unfiltered or with one tag, layer or year, the index counts nothing over the papers:
    the one query of the paper table is the page's 20 rows."""
    tag = Tag.objects.get(name="grpo")
    layer = Layer.objects.published().filter(papers__in_research_index=True).first()
    total = Paper.objects.in_research_index().count()
    cases = [
        ({}, total),
        ({"tag": "grpo"}, Paper.objects.in_research_index().filter(tags=tag).count()),
        ({"layer": layer.slug}, Paper.objects.in_research_index().filter(layers=layer).count()),
        ({"year": 2025}, Paper.objects.in_research_index().published_in(2025).count()),
        ({"year": 2025, "tag": "grpo"}, None),  # combined: counted
    ]
    for params, count in cases:
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/research/", params)
        assert response.status_code == 200
        page = response.context["page"]
        if count is not None:
            assert page.paginator.count == count > 0, params
            assert len(paper_table_queries(queries)) == 1, params
            assert "COUNT(" not in paper_table_queries(queries)[0], params
        assert response.context["total"] == total
    html = client.get("/research/").content.decode()
    assert '<option value="grpo">GRPO</option>' in html
    assert '<option value="2025">2025</option>' in html
    hidden = PaperFactory(in_research_index=False)
    hidden.tags.add("only-off-index")
    assert "only-off-index" not in client.get("/research/").content.decode()


def test_the_bottleneck_map_reads_each_layers_paper_count_from_the_stored_counts(client, demo):
    layer = Layer.objects.published().filter(papers__isnull=False).first()
    published = Paper.objects.published().filter(layers=layer).count()
    with CaptureQueriesContext(connection) as queries:
        html = client.get("/bottlenecks/").content.decode()
    assert f"{published} paper{'s' if published != 1 else ''} · " in html
    assert not paper_table_queries(queries)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(layer.get_absolute_url())
    assert response.context["page"].paginator.count == published
    dated = (
        Paper.objects.published()
        .filter(layers=layer)
        .with_known_date()
        .exclude(date_precision=DatePrecision.YEAR)
    )
    assert EvidenceTimeline.for_layer(layer).total_papers == dated.count() > 0
    assert all("COUNT(" not in sql for sql in paper_table_queries(queries))


@pytest.mark.parametrize("group_by", ["year", "layer"])
def test_api_group_by_reads_the_stored_counts_and_answers_as_counting_would(
    group_by, demo, monkeypatch
):
    Layer.objects.filter(pk=Layer.objects.published().first().pk).unpublish()  # not shown
    PaperFactory(publication_date=None, draft=True)  # not counted
    api = APIClient()
    with CaptureQueriesContext(connection) as queries:
        stored = api.get("/api/v1/papers/", {"group_by": group_by}).json()
    assert not paper_table_queries(queries)
    monkeypatch.setattr(PaperViewSet, "grouped", GroupByMixin.grouped)  # counted
    assert stored == api.get("/api/v1/papers/", {"group_by": group_by}).json()
    # A filter, and an editor who sees drafts, are counted as before.
    filtered = api.get("/api/v1/papers/", {"group_by": group_by, "in_research_index": "true"})
    assert filtered.json()["total"] == Paper.objects.in_research_index().count()
