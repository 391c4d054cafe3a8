"""Every page type passes axe-core with no serious or critical violations (issue 16), in both
themes, at 1280 px and on a phone. axe-core is vendored (tests/browser/vendor/axe.min.js,
MPL-2.0) and evaluated in the page by Playwright (`violations`, used by the other modules too)."""

import functools
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-accessibility")]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
BLOCKING = {"serious", "critical"}


def page_types():
    """One address per page type, from the demo content."""
    from bottlenecks.models import Layer
    from citations.models import Paper
    from notes.models import ResearchNote
    from tags.counts import public_tags

    hub = Paper.objects.published().filter(citations_received__isnull=False).first()
    return {
        "home": "/",
        "research index": "/research/",
        "research index filtered": "/research/?q=scaling&year=2025",
        "paper hub": hub.get_absolute_url(),
        "paper hub page 2": hub.get_absolute_url() + "?page=2",
        "note": ResearchNote.objects.published().first().get_absolute_url(),
        "bottleneck map": "/bottlenecks/",
        "layer": Layer.objects.published().first().get_absolute_url(),
        "claims": "/claims/",
        "diagnose": "/diagnose/",
        "diagnose step 2": "/diagnose/bottlenecks/?signal=compute-saturated",
        "papers": "/papers/",
        "notes": "/notes/",
        "tags": "/tags/",
        "tag": f"/tags/{public_tags().order_by('slug').first().slug}/",
        "search": "/search/?q=scaling",
        "search empty": "/search/?q=qqxyzzy",
        "search bad": "/search/?kind=nope&q=x",
        "not found": "/no-such-page/",
        **results_pages(),
    }


def results_pages():
    """The results pages of the demo: the list (filtered by a layer too, and with a bad
    filter), the benchmarks, the benchmark with the most runs, one run (its section on that
    page: a run has no page of its own), and two runs compared."""
    from django.db.models import Count

    from bottlenecks.models import Layer
    from results.models import Benchmark, Series

    benchmark = (
        Benchmark.objects.published()
        .annotate(runs=Count("series"))
        .order_by("-runs", "slug")
        .first()
    )
    first, second = Series.objects.public().order_by("slug")[:2]
    layer = Layer.objects.published().order_by("order").first()
    return {
        "results": "/results/",
        "results by layer": f"/results/?layer={layer.slug}&sort=value",
        "results bad filter": "/results/?task_family=poetry",
        "benchmarks": "/benchmarks/",
        "benchmark": benchmark.get_absolute_url(),
        "series": first.get_absolute_url(),
        "compare": f"/results/compare/?series={first.slug}&series={second.slug}",
    }


@functools.cache
def axe_source():
    return AXE.read_text()


def violations(page):
    """The serious and critical axe violations on the page. axe is evaluated over DevTools, which
    the page's CSP does not govern (an injected <script> needs a context with bypass_csp): a page
    under its CSP is checked as readers get it, and its own scripts' refusals still show."""
    page.evaluate(axe_source())
    results = page.evaluate(
        "axe.run(document, {runOnly: {type: 'tag', values: "
        "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}})"
    )
    return [
        (violation["id"], violation["impact"], [node["target"] for node in violation["nodes"]][:3])
        for violation in results["violations"]
        if violation["impact"] in BLOCKING
    ]


# Every page type at one width and theme in the default suite (about 20 s); the dark theme
# and the phone width in the slow step, where CI runs them on every change.
@pytest.mark.parametrize(
    "viewport,scheme",
    [
        # All three in the slow step: axe over every page type is a sweep (32 s of Chromium);
        # the journeys keep the browser in the default suite.
        pytest.param((1280, 900), "light", id="1280-light", marks=pytest.mark.slow),
        pytest.param((1280, 900), "dark", id="1280-dark", marks=pytest.mark.slow),
        pytest.param((390, 844), "light", id="390-light", marks=pytest.mark.slow),
    ],
)
def test_every_page_type_passes_axe(site, chromium, viewport, scheme):
    width, height = viewport
    context = chromium.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    try:
        page = context.new_page()
        found = {}
        for name, path in page_types().items():
            page.goto(site + path)
            page.evaluate("document.fonts.ready.then(() => true)")
            if problems := violations(page):
                found[name] = problems
        summary = sorted({(problem[0], str(problem[2])) for p in found.values() for problem in p})
        assert found == {}, summary
    finally:
        context.close()
