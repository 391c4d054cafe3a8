from pathlib import Path

import pytest

from citations.importers import make_plan, parse
from tests.factories import CitationRoleFactory

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "imports"


def fixture_text(name):
    return (FIXTURES / name).read_text(encoding="utf-8")


def run_import(*names, apply=True, publish=False):
    """Parse the named fixture files together, plan and (by default) apply; returns the plan."""
    records = [record for name in names for record in parse(fixture_text(name))]
    plan = make_plan(records, publish=publish)
    if apply:
        plan.apply()
    return plan


@pytest.fixture
def roles(db):
    return {
        slug: CitationRoleFactory(slug=slug, name=slug.title())
        for slug in ("background", "method", "comparison", "extension")
    }
