""" "Did you mean": a query word the site's words do not hold is replaced by the closest one
they do (difflib, on both databases).

The site's words are a bounded vocabulary, read once and cached: the titles, summaries and
abstracts of the newest VOCABULARY_PAPERS published papers, and every published bottleneck
layer and research note. At a million papers this reads the same few hundred rows as at the
demo's size; a word only older papers use is not in it, which is why a correction is offered
only when it finds more than the query as typed (search/views.py)."""

import difflib
import re

from django.core.cache import cache

from bottlenecks.models import Layer
from citations.models import NEWEST_FIRST, Paper
from notes.models import ResearchNote
from pagecache.caching import current_generation

VOCABULARY_PAPERS = 500
VOCABULARY_NOTES = 200
VOCABULARY_SECONDS = 600
VOCABULARY_KEY = "search:vocabulary"
# difflib's ratio above which a known word counts as the typed one misspelt: one letter
# dropped, doubled or swapped in a word of five letters or more.
CLOSENESS = 0.8
# Shorter words are too often a different word one letter away ("rule", "role").
MIN_CORRECTED_LENGTH = 4
WORD = re.compile(r"[a-z][a-z]+(?:-[a-z]+)*")


def words_of(*texts):
    """The words of `texts`: a hyphenated word, and each of its parts."""
    words = set()
    for word in WORD.findall(" ".join(text or "" for text in texts).lower()):
        words.add(word)
        words.update(word.split("-"))
    return words


def read_vocabulary():
    words = set()
    papers = Paper.objects.published().order_by(*NEWEST_FIRST)[:VOCABULARY_PAPERS]
    for row in papers.values_list("title", "summary", "abstract"):
        words |= words_of(*row)
    fields = ("name", "description", "failure_signal", "diagnostic_question")
    for row in Layer.objects.published().values_list(*fields):
        words |= words_of(*row)
    notes = ResearchNote.objects.published().order_by("-published_at")[:VOCABULARY_NOTES]
    for row in notes.values_list("title", "dek", "body"):
        words |= words_of(*row)
    return frozenset(words)


def vocabulary():
    # Keyed by the page cache's generation, so a change that reaches readers (an unpublished
    # paper's words gone, a new paper's words in) reaches the corrections at the same moment.
    key = f"{VOCABULARY_KEY}:{current_generation()}"
    words = cache.get(key)
    if words is None:
        words = read_vocabulary()
        cache.set(key, words, VOCABULARY_SECONDS)
    return words


def closest(word, words):
    """The known word closest to `word` (same first letter, length within two), or None."""
    candidates = [
        known for known in words if known[0] == word[0] and abs(len(known) - len(word)) <= 2
    ]
    found = difflib.get_close_matches(word, candidates, n=1, cutoff=CLOSENESS)
    return found[0] if found else None


def correction(text):
    """`text` with each unknown word replaced by the closest known one; None when no word
    changes."""
    words = None
    changed = False

    def replace(match):
        nonlocal words, changed
        word = match.group(0)
        lower = word.lower()
        if len(lower) < MIN_CORRECTED_LENGTH or not lower.isalpha():
            return word
        if words is None:
            words = vocabulary()
        if lower in words:
            return word
        known = closest(lower, words)
        if known is None:
            return word
        changed = True
        return known

    corrected = re.sub(r"(?<![\w:/.])[A-Za-z]+(?![\w:/.])", replace, text or "")
    return corrected if changed else None
