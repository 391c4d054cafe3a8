"""The exports as reference managers' own parsers read them: pybtex in strict mode and
bibtexparser over every list export, rispy round trips, citeproc-py in APA and IEEE; and the
cases that broke them (a suffix, an unbalanced brace, a DOI with `_`, `^` and `~`, a Greek
author, an arXiv id printed twice, the aliases clients send in Accept)."""

import json
import re

import bibtexparser
import pybtex.errors
import pytest
import rispy
from django.test import Client
from django.urls import reverse
from pybtex.database import parse_string

from bottlenecks.models import Layer
from citations.exports.formats import (
    base_cite_key,
    bibtex_entries,
    csl_item,
    ris_record,
    ris_records,
)
from citations.models import Author, Authorship, Citation, Paper
from tags.counts import public_tags
from tests.exports.test_validators import render_bibliography
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db

NASTY_TITLE = "Unbalanced { brace: x^2 ~ y, 100% & #1 of $5_{k} with a \\ backslash"
NASTY_DOI = "10.5555/abc.def_123%4#5&6~7"
NASTY_ARXIV = "2512.99001"


def with_authors(paper, *names):
    for position, name in enumerate(names):
        author, _ = Author.objects.get_or_create(name=name)
        Authorship.objects.create(paper=paper, author=author, position=position)
    return Paper.objects.with_authors().get(pk=paper.pk)


@pytest.fixture
def nasty():
    paper = PaperFactory(title=NASTY_TITLE, doi=NASTY_DOI, arxiv_id=NASTY_ARXIV)
    return with_authors(paper, "Martin Luther King Jr.", "Jan van der Berg", "Ἀριστοτέλης Πλάτων")


def strict_pybtex(text):
    pybtex.errors.set_strict_mode(True)
    try:
        return parse_string(text, "bibtex")
    finally:
        pybtex.errors.set_strict_mode(False)


def test_bibtex_keeps_the_doi_verbatim_and_reads_back_the_title(nasty):
    text = bibtex_entries([nasty])
    (entry,) = strict_pybtex(text).entries.values()
    assert entry.fields["doi"] == NASTY_DOI
    assert "\\^{}" not in text and "\\~{}" not in text
    assert "\\textasciicircum{}" in text and "\\textasciitilde{}" in text
    (parsed,) = bibtexparser.parse_string(text).entries
    assert not bibtexparser.parse_string(text).failed_blocks
    assert parsed["doi"] == NASTY_DOI


@pytest.mark.parametrize(
    "title", ["a { b", "a } b", "} a {", "{RL} for LLMs", "x^y ~ z", "100% \\ 5 & #"]
)
def test_any_title_parses_in_strict_mode(title):
    paper = with_authors(PaperFactory(title=title), "Ada Lovelace")
    strict_pybtex(bibtex_entries([paper]))


def test_a_non_latin_author_keys_by_the_transliterated_name():
    assert base_cite_key("Γιώργος Παπαδόπουλος", "", 2024, "Μάθηση ενίσχυσης") == (
        "papadopoylos2024mathisi"
    )
    assert base_cite_key("Иван Петров", "", 2023, "Обучение с подкреплением") == (
        "petrov2023obuchenie"
    )
    assert base_cite_key("José García-Pérez", "", 2025, "Scaling") == "garciaperez2025scaling"
    # Every script, not only two alphabets: no author is "anon" for having no Latin letters.
    assert base_cite_key("王小明", "", 2025, "强化学习 scaling") == (
        "wangxiaoming2025qianghuaxuexi"
    )
    assert base_cite_key("김민수", "", 2024, "Scaling RL") == "gimminsu2024scaling"
    assert base_cite_key("محمد علي", "", 2026, "Scaling RL").startswith("ly2026")
    paper = PaperFactory.build(title="Масштабирование", byline="", institution="")
    paper.cite_key_author = "Иван Петров"
    paper.save()
    assert paper.cite_key.startswith("petrov")


def test_ris_starts_each_record_with_ty_and_writes_names_last_first_suffix(nasty):
    text = ris_records([nasty, nasty])
    assert text.startswith("TY  - ")
    assert not re.search(r"^\d+\.", text, re.MULTILINE)
    (record, _) = rispy.loads(text)
    assert record["authors"][0] == "King, Martin Luther, Jr."
    assert record["authors"][1] == "van der Berg, Jan"
    assert len(record["urls"]) == len(set(record["urls"]))


def test_a_ris_file_is_laid_out_as_rispy_writes_it(nasty):
    """The records are joined directly, byte for byte what rispy's writer makes of the same
    records without its numbered headers: a blank line between records, a newline at the end."""

    class Unnumbered(rispy.RisWriter):
        def set_header(self, count):
            return None

    report = PaperFactory(
        title="A report\nin two lines", publication_type="report", institution="Z.ai"
    )
    undated = PaperFactory(title="Undated", publication_date=None, doi="10.1/x", url="")
    papers = [nasty, report, undated]
    records = [ris_record(paper) for paper in papers]
    assert ris_records(papers) == rispy.dumps(records, implementation=Unnumbered)
    assert ris_records([nasty]) == rispy.dumps(records[:1], implementation=Unnumbered)
    assert ris_records([]) == ""


def test_ris_names_the_arxiv_url_once():
    paper = PaperFactory(arxiv_id="2510.13786", url="https://arxiv.org/abs/2510.13786")
    (record,) = rispy.loads(ris_records([paper]))
    assert record["urls"] == ["https://arxiv.org/abs/2510.13786"]


@pytest.mark.parametrize("style", ["apa", "ieee"])
def test_citeproc_prints_the_arxiv_id_once(nasty, style):
    item = csl_item(nasty)
    (rendered,) = render_bibliography([item], style)
    assert rendered.count(NASTY_ARXIV) == 1, rendered


def list_exports():
    urls = [reverse("citations:research-export", kwargs={"extension": "bib"})]
    urls += [
        reverse("citations:tag-export", kwargs={"slug": tag.slug, "extension": "bib"})
        for tag in public_tags()
    ]
    urls += [
        reverse("citations:layer-export", kwargs={"slug": slug, "extension": "bib"})
        for slug in Layer.objects.published().values_list("slug", flat=True)
    ]
    cited = Citation.objects.public().values_list("cited_paper__slug", flat=True).distinct()
    urls += [
        reverse("citations:hub-export", kwargs={"slug": slug, "extension": "bib"}) for slug in cited
    ]
    return [url.removesuffix(".bib") + ".{}" for url in urls]


# Four external readers over every list export (about 17 s): the slow step, with the others.
@pytest.mark.slow
def test_every_list_export_reads_in_pybtex_strict_bibtexparser_rispy_and_citeproc(demo, nasty):
    nasty.tags.add("grpo")
    CitationFactory(citing_paper=nasty, cited_paper=Paper.objects.published().first())
    client = Client()
    urls = list_exports()
    assert len(urls) > 20
    entries = 0
    for url in urls:
        bib = client.get(url.format("bib"))
        assert bib.status_code == 200, url
        text = bib.content.decode()
        entries += len(strict_pybtex(text).entries)
        library = bibtexparser.parse_string(text)
        assert not library.failed_blocks, url
        ris = client.get(url.format("ris")).content.decode()
        assert not ris.strip() or ris.startswith("TY  - "), url
        assert len(rispy.loads(ris)) == len(library.entries), url
        items = json.loads(client.get(url.format("json")).content)
        assert len(items) == len(library.entries), url
        for style in ("apa", "ieee"):
            assert len(render_bibliography(items, style)) == len(items), (url, style)
    assert entries > 100


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [
        ("text/x-bibtex", "application/x-bibtex"),
        ("application/x-bibtex", "application/x-bibtex"),
        ("application/x-research-info-systems", "application/x-research-info-systems"),
        ("application/x-ris", "application/x-research-info-systems"),
        ("application/citeproc+json", "application/vnd.citationstyles.csl+json"),
        ("application/vnd.schemaorg.ld+json", "application/ld+json"),
    ],
)
def test_common_aliases_negotiate(accept, media_type):
    paper = PaperFactory()
    response = Client().get(paper.get_absolute_url(), headers={"accept": accept})
    assert response.status_code == 200, accept
    assert response["Content-Type"].startswith(media_type)


def test_the_csl_answer_for_one_paper_is_an_object():
    paper = PaperFactory(title="One paper")
    response = Client().get(
        paper.get_absolute_url(), headers={"accept": "application/vnd.citationstyles.csl+json"}
    )
    item = json.loads(response.content)
    assert isinstance(item, dict) and item["title"] == "One paper"
