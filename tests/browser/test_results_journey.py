"""The results walk in headless Chromium: an editor enters a run in the admin (its points
inline), the fit appears on the run's form once the task worker has run, and a reader compares
that run with another recipe's on the benchmark page, at desktop and phone width, with no
serious axe violation on either page."""

import numpy as np
import pytest
from django.core.management import call_command

from results.fits import sigmoid
from results.models import Fit, Series
from tests.browser.test_accessibility import violations
from tests.browser.test_editor_journey import saved
from tests.factories import PaperFactory, UserFactory
from tests.helpers import sign_in
from tests.results.factories import TRUTH, BenchmarkFactory, SeriesFactory, curve_points

# In the slow step: a walk through the admin, the worker and two widths is long beside the
# journeys that keep the browser in the default suite.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser-results-journey"),
    pytest.mark.slow,
]


def entered_points(count=6):
    """(compute in GPU-hours, value) on a known sigmoid, as an editor would type them."""
    compute = np.geomspace(50, 20000, count)
    values = sigmoid(
        np.log10(compute), TRUTH["R0"], TRUTH["A"], TRUTH["B"], np.log10(TRUTH["C_mid"])
    )
    return [(f"{c:.0f}", f"{v:.2f}") for c, v in zip(compute, values, strict=True)]


def enter_series(page, site, paper, benchmark):
    page.goto(f"{site}/admin/results/series/add/")
    page.fill("#id_name", "Recipe typed in the browser")
    for field, text in (("paper", paper.title), ("benchmark", benchmark.name)):
        page.locator(f"#id_{field} + .select2 .select2-selection").click()
        page.locator(".select2-container--open .select2-search__field").fill(text)
        page.locator(".select2-results__option", has_text=text).click()
    page.fill("#id_model_name", "Typed-7B")
    page.select_option("#id_status", "published")
    points = entered_points()
    for index, (compute, value) in enumerate(points):
        if page.locator(f"#id_points-{index}-value").count() == 0:
            page.click("#points-group .add-row a")
        page.select_option(f"#id_points-{index}-location_kind", "figure")
        page.fill(f"#id_points-{index}-location", f"Figure 3, point {index + 1}")
        page.fill(f"#id_points-{index}-value", value)
        page.fill(f"#id_points-{index}-compute_reported", compute)
        page.select_option(f"#id_points-{index}-compute_unit", "gpu_hours")
    page.click("input[name=_save]")
    saved(page)
    return Series.objects.get(name="Recipe typed in the browser")


def test_enter_a_run_see_its_fit_and_compare_two_recipes(transactional_db, live_server, chromium):
    user = UserFactory(editor=True, username="results-editor")
    paper = PaperFactory(title="A Paper Reporting Two Recipes", arxiv_id="2601.00042")
    benchmark = BenchmarkFactory(name="AIME 2024 walk", slug="aime-2024-walk")
    other = SeriesFactory(benchmark=benchmark, paper=paper, name="Baseline recipe")
    curve_points(other)
    call_command("refit_results", "--series", other.slug, verbosity=0)
    site = live_server.url

    editor = sign_in(chromium.new_context(viewport={"width": 1280, "height": 900}), site, user)
    page = editor.new_page()
    series = enter_series(page, site, paper, benchmark)
    assert series.points.count() == 6
    assert not Fit.objects.filter(series=series).exists()  # the request does not fit

    call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)
    page.goto(f"{site}/admin/results/series/{series.pk}/change/")
    fits = page.locator("#fits-group").inner_text()
    assert "sigmoid" in fits.lower()
    assert Fit.objects.filter(series=series, kind="sigmoid", reason_refused="").exists()
    editor.close()

    for width, height in ((1280, 900), (390, 844)):
        reader = chromium.new_context(
            viewport={"width": width, "height": height},
            bypass_csp=True,  # axe is injected
        )
        page = reader.new_page()
        page.goto(f"{site}/benchmarks/{benchmark.slug}/")
        chart = page.locator("svg").first
        assert chart.is_visible()
        assert "Recipe typed in the browser" in page.locator("main").inner_text()
        assert violations(page) == [], width
        page.get_by_role("checkbox", name="Recipe typed in the browser").check()
        page.get_by_role("checkbox", name="Baseline recipe").check()
        page.get_by_role("button", name="Compare").click()
        page.wait_for_url("**/results/compare/**")
        table = page.locator("main table").first.inner_text()
        assert "Recipe typed in the browser" in table and "Baseline recipe" in table
        assert "C" in table and "extrapolat" in page.locator("main").inner_text().lower()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (width, overflow)
        assert violations(page) == [], width
        reader.close()
