"""Editorial sentences that count what the site lists are computed from it: "how six coupled
dimensions grow together" reads "seven" once a seventh dimension is published. The number
(spelled or in digits) that names the rows' plural noun, with at most one word between
(an adjective: "six coupled dimensions"), is the number of rows shown."""

import re

from django import template

register = template.Library()

NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]


def number_text(count, like):
    """`count` written as `like` is: a word (capitalised if it was) up to twenty, else digits."""
    if like.isdigit() or count >= len(NUMBER_WORDS):
        return str(count)
    word = NUMBER_WORDS[count]
    return word.capitalize() if like[:1].isupper() else word


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
    noun = re.escape(str(model.verbose_name_plural))
    numbers = "|".join(NUMBER_WORDS)
    pattern = re.compile(rf"\b({numbers}|\d+)(\s+(?:[\w-]+\s+)?{noun})\b", re.IGNORECASE)
    return pattern.sub(lambda m: number_text(len(rows), m.group(1)) + m.group(2), text)
