"""Editorial sentences that count what the site lists are computed from it: "how six coupled
dimensions grow together" reads "seven" once a seventh dimension is published (the rule for
which number counts what is core/counted_text.py)."""

from django import template

from core.counted_text import with_count

register = template.Library()


@register.filter
def counted(text, rows):
    """`text` with the number that counts `rows` (a queryset or list of one model) made the
    number of rows. No rows given: the text as written."""
    if rows is None or not text:
        return text
    rows = list(rows)  # a queryset's rows are kept for the template's own loop over it
    model = getattr(rows[0], "_meta", None) if rows else None
    if model is None:
        return text
    return with_count(text, str(model.verbose_name_plural), len(rows))
