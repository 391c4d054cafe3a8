"""Numbers in editorial text that count rows: "six coupled dimensions". The number (spelled up
to twenty, or in digits) that names a plural noun, with at most one word between (an
adjective: "six coupled dimensions"), is the count the sentence states."""

import re

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


def _counting(noun):
    numbers = "|".join(NUMBER_WORDS)
    return re.compile(rf"\b({numbers}|\d+)(\s+(?:[\w-]+\s+)?{re.escape(noun)})\b", re.IGNORECASE)


def number_text(count, like):
    """`count` written as `like` is: a word (capitalised if it was) up to twenty, else digits."""
    if like.isdigit() or count >= len(NUMBER_WORDS):
        return str(count)
    word = NUMBER_WORDS[count]
    return word.capitalize() if like[:1].isupper() else word


def stated_counts(text, noun):
    """(the words, the number) for each number in `text` that counts `noun`."""
    found = []
    for match in _counting(noun).finditer(text or ""):
        number = match.group(1)
        value = int(number) if number.isdigit() else NUMBER_WORDS.index(number.lower())
        found.append((match.group(0), value))
    return found


def with_count(text, noun, count):
    """`text` with every number that counts `noun` made `count`."""
    return _counting(noun).sub(lambda m: number_text(count, m.group(1)) + m.group(2), text)
