"""What every Atom feed on the site shares: its length, a generator that stays well-formed, the
site as the feed's author, and entry ids that never change."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.utils.feedgenerator import Atom1Feed

from core.text import clean_data

FEED_LENGTH = 30
# The date in the site's `tag:` URIs (RFC 4151): fixed once, as every id minted with it must
# never change.
TAG_DATE = "2025"


class CleanAtom1Feed(Atom1Feed):
    """Atom that stays well-formed whatever is stored: text saved around the model's cleaning
    (bulk writes, raw SQL) loses its control characters here, instead of making Django raise
    (a 500 for everyone) or write an invalid attribute (a tag name in a category)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*clean_data(list(args)), **clean_data(kwargs))

    def add_item(self, *args, **kwargs):
        super().add_item(*clean_data(list(args)), **clean_data(kwargs))


def tag_uri(kind, pk, *rest):
    """A permanent id for row `pk` of `kind` (RFC 4287 §4.2.6: an entry's id never changes, so
    it is made from the row's id, never from a slug or title an editor may change)."""
    authority = urlsplit(settings.SITE_URL).hostname or "localhost"
    return ":".join([f"tag:{authority},{TAG_DATE}", kind, str(pk), *map(str, rest)])


class SiteFeed(Feed):
    """An Atom feed of the site: the site is the feed's author, so an entry with no author of
    its own (RFC 4287 §4.1.1) still has one."""

    feed_type = CleanAtom1Feed

    def author_name(self):
        return settings.SITE_NAME

    def author_link(self):
        return f"{settings.SITE_URL}/"
