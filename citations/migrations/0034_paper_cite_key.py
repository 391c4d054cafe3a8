# Stable cite keys: every paper's full key (base and suffix) stored in `Paper.cite_key`,
# filled with exactly the key the site showed before, so that no published key changes.
# The site worked a key out at read time from the stored base keys (0030): within a base the
# oldest paper (lowest id) kept it bare, later ones added b, c, ... in creation order, drafts
# included, skipping a suffixed key that is another paper's bare key. `keys_as_shown` is that
# rule, read in base order through the index `paper_cite_key_base` a batch of bases at a time.
# The unique constraint comes first: the fill is checked against it, and rows updated before
# its index would leave HOT chains the index cannot serve.

import itertools

import django.core.validators
from django.db import migrations, models
from django.db.models import OuterRef, Subquery

from citations.exports.formats import base_cite_key, key_suffix

BATCH = 2000
SPARE_SUFFIXES = 4


def base_of(first_author, byline, institution, date, precision, title):
    year = date.year if date and precision != "unknown" else ""
    return base_cite_key(first_author, byline or institution, year, title)


def keys_as_shown(rows, bare_keys_among, batch=BATCH):
    """(paper id, key) for every paper, as the site showed its key. `rows`: (base key, paper
    id) of every paper, ordered by base key then id; `bare_keys_among(keys)`: those of these
    keys that are some paper's base key. A suffixed key another base already gave (which the
    site showed twice, and the unique constraint refuses) moves on to the next free suffix."""
    shared = []
    given = set()

    def settle():
        checked = {
            base + key_suffix(index)
            for base, pks in shared
            for index in range(1, len(pks) + SPARE_SUFFIXES)
        }
        bare = set(bare_keys_among(checked))
        for base, pks in shared:
            yield pks[0], base
            index = 0
            for pk in pks[1:]:
                index += 1
                while True:
                    key = base + key_suffix(index)
                    if key not in checked:
                        checked.add(key)
                        bare.update(bare_keys_among({key}))
                    if key not in bare and key not in given:
                        break
                    index += 1
                given.add(key)
                yield pk, key
        shared.clear()

    for base, group in itertools.groupby(rows, key=lambda row: row[0]):
        pks = [pk for _, pk in group]
        if len(pks) == 1:
            yield pks[0], base
            continue
        shared.append((base, pks))
        if len(shared) >= batch:
            yield from settle()
    yield from settle()


def store_missing_bases(Paper, Authorship):
    """The base key of any paper without one stored (SQL written outside the ORM, or a
    database that skipped 0030's fill): worked out from its row and first author, as the site
    did for such a paper."""
    first_author = Subquery(
        Authorship.objects.filter(paper=OuterRef("pk"))
        .order_by("position", "id")
        .values("author__name")[:1]
    )
    fields = ("title", "byline", "institution", "publication_date", "date_precision")
    ids = list(Paper.objects.filter(cite_key_base="").order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):
        rows = (
            Paper.objects.filter(pk__in=ids[start : start + BATCH])
            .annotate(first_author=first_author)
            .values_list("pk", "first_author", *fields)
            .order_by()
        )
        papers = [
            Paper(pk=pk, cite_key_base=base_of(author, byline, institution, date, precision, title))
            for pk, author, title, byline, institution, date, precision in rows
        ]
        Paper.objects.bulk_update(papers, ["cite_key_base"], batch_size=500)


def fill_cite_keys(apps, schema_editor):
    Paper = apps.get_model("citations", "Paper")
    Authorship = apps.get_model("citations", "Authorship")
    store_missing_bases(Paper, Authorship)

    def bare_keys_among(keys):
        keys = sorted(keys)
        found = set()
        for start in range(0, len(keys), BATCH):
            chunk = keys[start : start + BATCH]
            rows = Paper.objects.filter(cite_key_base__in=chunk).order_by()
            found.update(rows.values_list("cite_key_base", flat=True))
        return found

    rows = (
        Paper.objects.order_by("cite_key_base", "pk")
        .values_list("cite_key_base", "pk")
        .iterator(chunk_size=BATCH)
    )
    pending = []
    for pk, key in keys_as_shown(rows, bare_keys_among):
        pending.append(Paper(pk=pk, cite_key=key))
        if len(pending) >= BATCH:
            Paper.objects.bulk_update(pending, ["cite_key"], batch_size=500)
            pending = []
    Paper.objects.bulk_update(pending, ["cite_key"], batch_size=500)


CITE_KEY = models.CharField(
    blank=True,
    db_default="",
    default="",
    help_text="How the exports (BibTeX, RIS, CSL-JSON) name the paper. Assigned once when the paper is created; people cite it from their .bib files, so change it only to correct it. Left empty, the paper keeps the key it has.",
    max_length=1000,
    validators=[
        django.core.validators.RegexValidator(
            "\\A[A-Za-z0-9_:./+-]+\\Z",
            "Letters, digits and _ : . / + - only: the characters a BibTeX key may hold in every tool.",
        )
    ],
    verbose_name="cite key",
)


class Migration(migrations.Migration):

    dependencies = [
        ("bottlenecks", "0005_status_submitted_for_review"),
        ("citations", "0033_status_scheduled"),
        ("rlscaling", "0004_tag"),
    ]

    operations = [
        migrations.AddField(model_name="historicalpaper", name="cite_key", field=CITE_KEY),
        migrations.AddField(model_name="paper", name="cite_key", field=CITE_KEY.clone()),
        migrations.AddConstraint(
            model_name="paper",
            constraint=models.UniqueConstraint(
                condition=models.Q(("cite_key", ""), _negated=True),
                fields=("cite_key",),
                name="unique_paper_cite_key",
                violation_error_message="Another paper has this cite key: each key names one paper.",
            ),
        ),
        migrations.RunPython(fill_cite_keys, migrations.RunPython.noop),
    ]
