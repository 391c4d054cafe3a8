"""After one editorial save the site re-renders its stale pages a few at a time (issue 15): while
the site-wide rebuild slot is taken, readers of other stale pages get their previous copy, for
at most PAGE_CACHE_STALE_SECONDS after the change; a withdrawn item is never served stale.

"Another request is rendering" is played by a page cache middleware whose view, while it
renders, asks the site for a second page: a second client arriving during the first rendering.
"""

import time

import pytest
from django.http import HttpResponse
from django.test import Client, RequestFactory

from citations.models import Paper
from rlscaling import caching
from rlscaling.publishing import Status
from tests.helpers import ART_OF_SCALING

HUB = f"/papers/{ART_OF_SCALING}/"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def stale_window(settings):
    settings.PAGE_CACHE_STALE_SECONDS = 30
    settings.PAGE_CACHE_REBUILD_SLOTS = 1


def warm(*paths):
    for path in paths:
        Client().get(path)
        assert Client().get(path)["X-Page-Cache"] == "hit", path


def while_rendering(path, during):
    """Request `path` through the page cache; while its view renders, run `during()` (the
    requests of other readers) and return what it returned."""
    seen = []

    def view(request):
        seen.append(during())
        return HttpResponse(f"rendered {path}")

    answer = caching.PageCacheMiddleware(view)(RequestFactory().get(path))
    assert not answer.has_header("X-Page-Cache"), "the outer request renders the page"
    return seen[0]


def retitle_hub(title):
    paper = Paper.objects.get(slug=ART_OF_SCALING)
    paper.title = title
    paper.save()
    return paper


def test_while_one_stale_page_is_re_rendered_the_others_are_served_their_last_copy(demo):
    warm("/", "/research/", HUB)
    retitle_hub("A retitled hub")

    def readers():
        return [Client().get(path) for path in ("/research/", HUB)]

    others = while_rendering("/", readers)
    assert [answer["X-Page-Cache"] for answer in others] == ["stale", "stale"]
    assert "A retitled hub" not in others[1].content.decode()
    # The slot is free again once "/" is stored: the next reader of a stale page renders it
    # and sees the change.
    fresh = Client().get(HUB)
    assert not fresh.has_header("X-Page-Cache")
    assert "A retitled hub" in fresh.content.decode()
    assert Client().get(HUB)["X-Page-Cache"] == "hit"


def test_with_two_slots_two_pages_are_re_rendered_at_once(demo, settings):
    settings.PAGE_CACHE_REBUILD_SLOTS = 2
    warm("/", "/research/", HUB)
    retitle_hub("A retitled hub")

    def third_reader():
        return Client().get("/research/")

    def second_reader():  # takes the second slot
        return while_rendering(HUB, third_reader)

    assert while_rendering("/", second_reader)["X-Page-Cache"] == "stale"


def test_a_reader_alone_sees_the_change_on_the_first_request(demo):
    warm(HUB)
    retitle_hub("A retitled hub")
    first = Client().get(HUB)
    assert not first.has_header("X-Page-Cache")
    assert "A retitled hub" in first.content.decode()


def test_past_the_stale_bound_the_change_is_shown_even_while_the_slot_is_taken(demo, settings):
    settings.PAGE_CACHE_STALE_SECONDS = 1
    warm("/", HUB)
    retitle_hub("A retitled hub")

    def reader_after_the_bound():
        assert Client().get(HUB)["X-Page-Cache"] == "stale"  # inside the window
        time.sleep(1.2)
        return Client().get(HUB)

    late = while_rendering("/", reader_after_the_bound)
    assert not late.has_header("X-Page-Cache")
    assert "A retitled hub" in late.content.decode()


def test_later_saves_do_not_extend_the_bound_for_an_older_copy(demo, settings):
    settings.PAGE_CACHE_STALE_SECONDS = 1
    warm("/", HUB)
    retitle_hub("First title")
    time.sleep(1.2)  # the first change's window closed; the hub's copy is older than it
    retitle_hub("Second title")  # opens a new window, which covers newer copies only

    def reader():
        return Client().get(HUB)

    answer = while_rendering("/", reader)
    assert not answer.has_header("X-Page-Cache")
    assert "Second title" in answer.content.decode()


def test_an_unpublished_item_is_never_served_stale_while_the_slot_is_taken(demo):
    paper = Paper.objects.get(slug=ART_OF_SCALING)
    warm("/", "/research/", HUB)
    assert paper.title in Client().get("/research/").content.decode()
    paper.status = Status.DRAFT
    paper.save()

    def readers():
        return Client().get(HUB), Client().get("/research/")

    page, index = while_rendering("/", readers)
    assert page.status_code == 404
    assert not index.has_header("X-Page-Cache")
    assert paper.title not in index.content.decode()


def test_a_deleted_item_is_never_served_stale_while_the_slot_is_taken(demo):
    warm("/", HUB)
    Paper.objects.get(slug=ART_OF_SCALING).delete()

    def reader():
        return Client().get(HUB)

    assert while_rendering("/", reader).status_code == 404


def test_a_rendering_that_fails_gives_the_slot_back(demo):
    warm("/", HUB)
    retitle_hub("A retitled hub")

    def broken_view(request):
        raise RuntimeError("the view failed")

    with pytest.raises(RuntimeError):
        caching.PageCacheMiddleware(broken_view)(RequestFactory().get("/"))
    fresh = Client().get(HUB)
    assert not fresh.has_header("X-Page-Cache")
    assert "A retitled hub" in fresh.content.decode()
