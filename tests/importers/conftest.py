import pytest

from tests.factories import CitationRoleFactory


@pytest.fixture
def roles(db):
    return {
        slug: CitationRoleFactory(slug=slug, name=slug.title())
        for slug in ("background", "method", "comparison", "extension")
    }
