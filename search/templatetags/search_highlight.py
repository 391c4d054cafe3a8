from django import template

from search.highlight import EXCERPT_LENGTH, highlight

register = template.Library()


@register.filter
def highlighted(text, terms):
    """{{ hit.title|highlighted:query.terms }}: the text, escaped, its matches marked."""
    return highlight(text, terms)


@register.filter
def excerpt_highlighted(text, terms):
    """An excerpt around the first match, escaped, its matches marked."""
    return highlight(text, terms, EXCERPT_LENGTH)
