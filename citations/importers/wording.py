"""An import's counts in sentences, for editors: the admin's messages and run pages, the API's
`summary`, the reports and the command's output say "Created 4 papers and updated 1.", never
the counts' dict. Also the words every reader uses in a record's notes for what it leaves out
or cannot read, so the dry run says it the same way whatever the format."""

# What each count of a plan or bulk report is about, and its verb (past, conditional).
PAPER_COUNTS = (
    ("create", "created", "create"),
    ("update", "updated", "update"),
    ("merge", "merged into papers already here", "merge into papers already here"),
    ("skip", "left unchanged", "leave unchanged"),
)
EDGE_COUNTS = (
    ("edge create", "created", "create"),
    ("edge update", "classified", "classify"),
    ("edge skip", "left unchanged", "leave unchanged"),
)
PENDING = "edge pending"
MORE_NOTES = "more notes"  # a bulk report keeps its first notes only


def plural(n, noun, nouns=None):
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"


def joined(parts):
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _sentence(counts, verbs, noun, applied):
    parts = []
    for key, done, would in verbs:
        n = counts.get(key, 0)
        if n:
            verb = done if applied else would
            parts.append(f"{verb} {plural(n, noun) if not parts else f'{n:,}'}")
    if not parts:
        return ""
    text = joined(parts)
    return f"{text[0].upper()}{text[1:]}." if applied else f"Would {text}."


def counts_in_words(counts, applied):
    """`counts` ({"create": 4, "update": 1, "edge pending": 2, ...}) as sentences: what was
    done (`applied`) or what applying would do."""
    counts = counts or {}
    sentences = [
        _sentence(counts, PAPER_COUNTS, "paper", applied),
        _sentence(counts, EDGE_COUNTS, "citation edge", applied),
    ]
    pending = counts.get(PENDING, 0)
    if pending:
        waits = "waits" if pending == 1 else "wait"
        sentences.append(
            f"{plural(pending, 'citation edge')} {waits if applied else 'would wait'} for the "
            "paper at the other end to be imported."
        )
    if counts.get(MORE_NOTES):
        sentences.append(f"{plural(counts[MORE_NOTES], 'more note')} left out of the report.")
    known = {key for key, *_ in (*PAPER_COUNTS, *EDGE_COUNTS)} | {PENDING, MORE_NOTES}
    for key, n in sorted(counts.items()):
        if key not in known and n:
            sentences.append(f"{key.capitalize()}: {n:,}.")
    sentences = [sentence for sentence in sentences if sentence]
    if not sentences:
        return "Nothing was changed." if applied else "Nothing would change."
    return " ".join(sentences)


# A record's notes (PaperRecord.notes): what a reader leaves out or could not read.
KEPT_TO = {0: "no date is kept", 1: "the date is kept to its year"}
KEPT_TO |= {2: "the date is kept to its month", 3: "the date is kept to its day"}


def fields_not_imported(names):
    """The note for a record's fields (tags, keys, elements) that no paper field takes."""
    return "fields not imported: " + ", ".join(sorted(names))


def date_not_read(field, value, kept_parts):
    """The note for a date (or month) `field` whose `value` could not be read, beside what was
    kept of the date: `kept_parts` of [year, month, day] (0: no date at all)."""
    return f"{field} {str(value)[:40]!r} not read: {KEPT_TO[kept_parts]}"
