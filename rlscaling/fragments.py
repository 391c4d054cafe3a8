"""Cards (a paper, a research note or a claim in a list) rendered once per content generation
and shared by every page, process and server that lists them (issue 15).

A page the page cache does not answer (another filter or page number, a reader with a session
cookie, an entry past PAGE_CACHE_SECONDS) spent most of its time rendering its cards and
loading what they show. Here each card is kept in the shared cache under the page cache's
generation (rlscaling/caching.py): every editorial change bumps it, so a card is never older
than the page around it, and the rules that keep pages right (what a save, a scheduled
publication, a bulk command or a restore invalidates) keep cards right too. A page reads its
cards in one round trip (`get_many`) and loads (`card_prefetches()`) and renders only the
missing ones. The key holds the sources of the card's template and of those it includes, so
a deploy or an edit under runserver shows at once. FRAGMENT_CACHE_SECONDS (default 300, 0:
off) bounds how long a card can miss a change that nothing announces, as PAGE_CACHE_SECONDS
does for pages.

A card renders from its item and the options its list passes, nothing else (no request, no
user), so readers and editors share it; a new option is a new card.

`{% fragment "name" value ... %}...{% endfragment %}` keeps any other block the same way, such
as a hub's summary, timeline, JSON-LD and representatives: once per generation and values,
keyed by the block as written and the templates it includes. Neither is read or kept while a
draft revision is previewed (`caching.unshared`)."""

import hashlib
import logging
import weakref

from django.core.cache import cache
from django.db.models import prefetch_related_objects
from django.template.loader import get_template
from django.template.loader_tags import IncludeNode
from django.utils.safestring import mark_safe

from .caching import cached_by_generation, fragment_cache_seconds, kept_values_generation
from .middleware import CACHE_ERRORS

logger = logging.getLogger(__name__)

KEY_PREFIX = "card:v1"
FRAGMENT_KEY_PREFIX = "fragment:v1"


def template_sources(template):
    """The source of a template (django.template.base.Template) and of the templates it
    includes by name, so that a card template edited (a deploy, runserver) is a new card."""
    return [template.source, *included_sources(template.nodelist)]


def included_sources(nodelist):
    """The sources of the templates `nodelist` includes by name, and of those they include."""
    sources = []
    for node in nodelist.get_nodes_by_type(IncludeNode):
        if isinstance(node.template.var, str):
            sources += template_sources(get_template(node.template.var).template)
    return sources


# The digest of each loaded card template's sources. Template loaders cache a template once
# per process, and a file edited under runserver empties that cache (so the edit is a new
# template object and a new digest): walking the includes on every list is needless.
_source_digests = weakref.WeakKeyDictionary()


def source_digest(template):
    """The digest of `template_sources(template)`, worked out once per loaded template."""
    try:
        return _source_digests[template]
    except KeyError:
        sources = repr(template_sources(template)).encode()
        digest = _source_digests[template] = hashlib.blake2b(sources, digest_size=8).hexdigest()
        return digest


def card_keys(items, template, options):
    """One cache key per item: the generation, the template and options, the item."""
    variant = repr((source_digest(template.template), sorted(options.items())))
    digest = hashlib.blake2b(variant.encode(), digest_size=8).hexdigest()
    prefix = f"{KEY_PREFIX}:{kept_values_generation()}:{digest}"
    return [f"{prefix}:{item._meta.label_lower}:{item.pk}" for item in items]


def render_cards(items, template_name, name, **options):
    """The cards of `items` (model instances, all of one model), in their order, as HTML:
    `template_name` rendered with the item as `name` and the `options`. What a missing card
    shows is loaded by the model's `card_prefetches(**options)` first."""
    items = list(items)
    if not items:
        return ""
    template = get_template(template_name)
    seconds = fragment_cache_seconds()
    keys, found = [str(index) for index in range(len(items))], {}
    if seconds:
        try:
            keys = card_keys(items, template, options)
            found = cache.get_many(keys)
        except CACHE_ERRORS:
            logger.warning("Cards: the cache is unreachable, rendering every card")
            seconds = 0
    missing = [(key, item) for key, item in zip(keys, items, strict=True) if key not in found]
    if missing:
        missing_items = [item for _, item in missing]
        prefetch_related_objects(missing_items, *type(items[0]).card_prefetches(**options))
        rendered = {key: template.render({name: item, **options}) for key, item in missing}
        found.update(rendered)
        if seconds:
            try:
                cache.set_many(rendered, seconds)
            except CACHE_ERRORS:
                logger.warning("Cards: the cache is unreachable, cards not kept")
    return mark_safe("".join(found[key] for key in keys))  # noqa: S308 - rendered templates


def block_digest(tokens, nodelist):
    """A digest of a `{% fragment %}` block: its own tokens (the block as written) and the
    sources of the templates it includes by name, so that an edit is a new fragment."""
    written = [f"{token.token_type.value}:{token.contents}" for token in tokens]
    written += included_sources(nodelist)
    return hashlib.blake2b(repr(written).encode(), digest_size=8).hexdigest()


def render_fragment(name, digest, vary, render):
    """`render()` (HTML), kept once per generation for `name`, the block's `digest` and the
    `vary` values, as a hub's figures are (`cached_by_generation`, FRAGMENT_CACHE_SECONDS)."""
    values = hashlib.blake2b(repr(vary).encode(), digest_size=8).hexdigest()
    return cached_by_generation(f"{FRAGMENT_KEY_PREFIX}:{name}:{digest}:{values}", render)
