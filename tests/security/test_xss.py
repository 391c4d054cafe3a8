"""Hostile editor text never reaches a reader as live markup: Markdown bodies go through the nh3
allow-list, every other field is escaped, and no page carries a script, an event handler or a
javascript:/data: URL that the site did not put there itself."""

import json
import re
from html.parser import HTMLParser

import pytest
from django.core.exceptions import ValidationError
from django.template import Context, Template
from django.urls import reverse
from django.utils.html import escape

from bottlenecks.models import AnalysisStep
from core.markdown import render_markdown
from notes.models import GuideSection
from tests.factories import (
    CitationFactory,
    ClaimFactory,
    CommunityPostFactory,
    DimensionFactory,
    LayerFactory,
    LoopStageFactory,
    PaperFactory,
    QuestionFactory,
    ResearchNoteFactory,
)

PAYLOADS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<<script>script>alert(1)<</script>/script>",
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(1)>",
    "</textarea></title></script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<img src="javascript:alert(1)">',
    '<p onmouseover="alert(1)">hover</p>',
    '<a href="https://ok.example" onclick="alert(1)">click</a>',
    "<details open ontoggle=alert(1)>x</details>",
    "<body onload=alert(1)>",
    "<svg onload=alert(1)><script>alert(1)</script></svg>",
    "<svg><animate onbegin=alert(1) attributeName=x dur=1s></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    '<iframe src="javascript:alert(1)"></iframe>',
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<object data="data:text/html,<script>alert(1)</script>"></object>',
    '<embed src="data:image/svg+xml,<svg onload=alert(1)>">',
    '<form action="javascript:alert(1)"><button formaction="javascript:alert(2)">x</button></form>',
    '<base href="javascript:alert(1)//">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "<link rel=stylesheet href=javascript:alert(1)>",
    '<div style="background:url(javascript:alert(1))">styled</div>',
    "<style>@import 'javascript:alert(1)';</style>",
    '<a href="javascript:alert(1)">js link</a>',
    '<a href="JaVaScRiPt:alert(1)">mixed case</a>',
    '<a href=" &#14;javascript:alert(1)">control char</a>',
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;:alert(1)">entities</a>',
    '<a href="java&#x09;script:alert(1)">tab</a>',
    '<a href="vbscript:msgbox(1)">vbs</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>',
    "[markdown link](javascript:alert(1))",
    "[spaced](  javascript:alert(1) )",
    "[encoded](&#106;avascript:alert(1))",
    "[percent](javascript%3Aalert(1))",
    "[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![image](javascript:alert(1))",
    "![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    '![x](https://ok.example/a.png" onerror="alert(1))',
    '[title trick](https://ok.example "t\\" onmouseover=\\"alert(1)")',
    "[reference][r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    '<https://ok.example/" onmouseover="alert(1)>',
    "```\n</code></pre><script>alert(1)</script>\n```",
    "<!--><script>alert(1)</script>-->",
    "<![CDATA[<script>alert(1)</script>]]>",
    "<a href='https://ok.example'>unclosed <b>bold <i>italic",
    "<img/src/onerror=alert(1)>",
    "<a\nhref=javascript:alert(1)>newline</a>",
    "\u003cscript\u003ealert(1)\u003c/script\u003e",
]

GUIDE_SECTION_KEYS = [
    "intro", "dimensions", "loop", "breaks", "evidence", "community", "questions", "latest", "faq",
    "research-index",
]  # fmt: skip
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "srcset"}
DANGEROUS_TAGS = {
    "script", "iframe", "object", "embed", "base", "meta", "link", "style", "svg", "math",
    "form", "frame", "frameset", "applet",
}  # fmt: skip
# What the site's own templates may put in <head> (stylesheets, icons, feeds) and <script>s
# that are data, not code (JSON-LD). Editor text is checked against everything else.
SITE_LINK_RELS = {"stylesheet", "icon", "alternate", "canonical", "preload", "manifest"}
DATA_SCRIPT_TYPES = {"application/ld+json", "application/json"}


def _dangerous_url(value):
    cleaned = re.sub(r"[\x00-\x20]", "", value).lower()
    return cleaned.startswith(("javascript:", "vbscript:", "data:"))


class MarkupAudit(HTMLParser):
    """Collects every live-markup problem in an HTML document or fragment."""

    def __init__(self, page=False):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.problems = []
        self._data_script = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=…>")
            if name in URL_ATTRIBUTES and value and _dangerous_url(value):
                self.problems.append(f"<{tag} {name}={value!r}>")
            if name == "style" and value and "url(" in value.lower():
                self.problems.append(f"<{tag} style={value!r}>")
        attributes = dict(attrs)
        if tag == "script":
            if self.page and attributes.get("type") in DATA_SCRIPT_TYPES:
                self._data_script = []
            elif not (self.page and attributes.get("src", "").startswith("/static/")):
                self.problems.append(f"<script {attributes}>")
        elif tag == "link" and self.page:
            if not set((attributes.get("rel") or "").split()) & SITE_LINK_RELS:
                self.problems.append(f"<link {attributes}>")
        elif tag == "meta" and self.page:
            if attributes.get("http-equiv"):
                self.problems.append(f"<meta {attributes}>")
        elif tag == "form" and self.page:
            if not (attributes.get("action") or "/").startswith("/"):
                self.problems.append(f"<form {attributes}>")
        elif tag in DANGEROUS_TAGS and not (self.page and tag in {"meta", "link", "form", "svg"}):
            self.problems.append(f"<{tag}>")

    def handle_data(self, data):
        if self._data_script is not None:
            self._data_script.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._data_script is not None:
            text = "".join(self._data_script)
            try:
                json.loads(text)  # a payload that broke out of the block would not parse
            except ValueError:
                self.problems.append(f"<script> data block is not JSON: {text[:120]!r}")
            self._data_script = None


def audit(html, page=False):
    parser = MarkupAudit(page=page)
    parser.feed(html)
    parser.close()
    return parser.problems


# -- the renderer ----------------------------------------------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_rendering_removes_the_payload(payload):
    html = render_markdown(payload)
    assert audit(html) == [], html
    assert "<script" not in html.lower()


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_markdown_template_filter_is_sanitised_too(payload):
    html = Template("{% load rendering %}{{ text|markdown }}").render(Context({"text": payload}))
    assert audit(html) == [], html


def test_safe_markdown_survives_sanitising():
    html = render_markdown(
        "Some **bold**, a [link](https://arxiv.org/abs/2510.13786) and a table:\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert "<strong>bold</strong>" in html
    assert 'href="https://arxiv.org/abs/2510.13786"' in html
    assert 'rel="noopener noreferrer nofollow"' in html
    assert "<table>" in html


def test_only_links_leaving_the_site_are_nofollow(settings):
    """The site's own pages are what it vouches for: internal links pass their standing."""
    settings.SITE_URL = "https://rlscaling.example.org"
    html = render_markdown(
        "[hub](/papers/grpo/), [here](#method), [own](https://rlscaling.example.org/claims/), "
        "[away](https://arxiv.org/abs/2510.13786), [sneaky](//evil.example/), "
        '<a title="t" href="http://other.example/">raw</a>'
    )
    links = re.findall(r"<a [^>]*>", html)
    assert len(links) == 6, html
    internal, external = links[:3], links[3:]
    assert not any("nofollow" in link for link in internal), internal
    assert all('rel="noopener noreferrer nofollow"' in link for link in external), external


def test_the_audit_itself_catches_live_markup():
    for bad in [
        "<script>x</script>",
        '<a href="javascript:x">',
        '<img src=x onerror="x">',
        '<a href=" JAVA\tSCRIPT:x">',
    ]:
        assert audit(bad), bad


# -- URL fields ------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:x"]
)
def test_url_fields_refuse_script_and_data_urls(url):
    paper = PaperFactory.build(url=url)
    post = CommunityPostFactory.build(url=url)
    for obj in [paper, post]:
        with pytest.raises(ValidationError) as refused:
            obj.full_clean()
        assert "url" in refused.value.error_dict


# -- the public pages that show editor text ---------------------------------------------------


def _page_urls(note, paper, layer, tag_slug, payload):
    """Every public page that shows editor text, and the research index echoing a search."""
    candidates = [
        ("home", {}, {}),
        ("notes:note-detail", {"slug": note.slug}, {}),
        ("citations:paper-detail", {"slug": paper.slug}, {}),
        ("citations:research-index", {}, {}),
        ("citations:research-index", {}, {"q": payload}),  # the query is echoed back
        ("bottlenecks:index", {}, {}),
        ("bottlenecks:layer-detail", {"slug": layer.slug}, {}),
        ("tag-detail", {"slug": tag_slug}, {}),
    ]
    return [(reverse(name, kwargs=kwargs), query) for name, kwargs, query in candidates]


@pytest.fixture
def hostile_content(db):
    """One published item of each kind with a payload in every text field it has."""

    def build(payload):
        text = payload[:190]
        layer = LayerFactory(
            name=text[:100],
            description=payload,
            failure_signal=payload,
            diagnostic_question=payload,
        )
        DimensionFactory(name=text[:100], description=payload)
        LoopStageFactory(name=text[:100], description=payload)
        paper = PaperFactory(
            title=text,
            byline=text,
            institution=text,
            summary=payload,
            abstract=payload,
            arxiv_id='2501.0"><b>',
            doi='10.1/"><script>alert(1)</script>'[:200],
        )
        paper.tags.add("xss-check")
        paper.layers.add(layer)
        citing = PaperFactory(title=text, in_research_index=False)
        CitationFactory(citing_paper=citing, cited_paper=paper, context=payload)
        note = ResearchNoteFactory(
            title=text,
            dek=payload,
            body=payload,
            why_it_matters=payload,
            caveat=payload,
            is_featured=True,
        )
        note.papers.add(paper)
        note.layers.add(layer)
        note.tags.add("xss-check")
        ClaimFactory(figure=text[:40], unit=text[:200], statement=payload).notes.add(note)
        CommunityPostFactory(title=text, author=text, source=text[:100], summary=payload)
        QuestionFactory(question=text, answer=payload)
        _add_analysis(payload, text)
        for order, key in enumerate(GUIDE_SECTION_KEYS):
            GuideSection.objects.create(
                key=key, order=order, eyebrow=text, heading=text, intro=payload, footnote=payload
            )
        return note, paper, layer

    return build


def _add_analysis(payload, text):
    from bottlenecks.models import Analysis
    from publishing.models import Status

    analysis = Analysis.objects.create(
        title=text,
        slug=f"analysis-{Analysis.objects.count()}",
        eyebrow=text[:100],
        dek=payload,
        body=payload,
        status=Status.PUBLISHED,
    )
    AnalysisStep.objects.create(analysis=analysis, order=1, title=text, body=payload)


@pytest.mark.django_db
@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_payload_survives_on_the_pages_that_show_editor_text(client, hostile_content, payload):
    note, paper, layer = hostile_content(payload)
    urls = _page_urls(note, paper, layer, "xss-check", payload)
    for url, query in urls:
        response = client.get(url, query)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert audit(html, page=True) == [], url
    # The hostile text really is on the pages (escaped), so the audit above looked at it.
    note_page = client.get(note.get_absolute_url()).content.decode()
    assert escape(note.title) in note_page
    hub_page = client.get(paper.get_absolute_url()).content.decode()
    assert escape(paper.title) in hub_page


@pytest.mark.django_db
def test_the_feed_escapes_editor_text(client, hostile_content):
    hostile_content("<script>alert(1)</script><img src=x onerror=alert(1)>")
    response = client.get(reverse("feed-latest"))
    assert response.status_code == 200
    body = response.content.decode()
    # Atom carries text escaped (&lt;script&gt;); a raw tag would be live in many readers.
    assert "<script" not in body.lower()
    assert "<img" not in body.lower()


def test_every_payload_is_distinct_enough_to_matter():
    # Guard against the list silently shrinking to harmless strings.
    assert len(PAYLOADS) >= 50
    assert sum("javascript:" in p.lower() for p in PAYLOADS) >= 15


@pytest.mark.django_db
def test_paper_urls_built_from_identifiers_are_escaped(client):
    paper = PaperFactory(arxiv_id='2501"onmouseover="alert(1)', doi='10.1/"><script>x</script>')
    for url in [paper.get_absolute_url(), reverse("citations:research-index")]:
        response = client.get(url)
        assert response.status_code == 200
        assert audit(response.content.decode(), page=True) == [], url
