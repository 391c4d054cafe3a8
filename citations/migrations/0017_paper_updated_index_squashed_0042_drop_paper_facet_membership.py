# 0017_paper_updated_index to 0042_drop_paper_facet_membership, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.
# The raw SQL only PostgreSQL ran, as it stands at the end, comes last.

import django.core.validators
import django.db.models.deletion
import django.db.models.functions.text
import django.utils.timezone
import simple_history.models
from django.conf import settings
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models
import itertools
from django.db.models import OuterRef, Subquery
from citations.exports.formats import base_cite_key, key_suffix
from django.utils.text import slugify


# From 0026_import_chunks.

CHUNK_CHARS = 1_000_000


def texts_to_chunks(apps, schema_editor):
    """Runs stored before chunks keep their text, cut as ImportRun.store cuts it."""
    ImportRun = apps.get_model("citations", "ImportRun")
    ImportChunk = apps.get_model("citations", "ImportChunk")
    for run in ImportRun.objects.only("pk").iterator():
        text = ImportRun.objects.values_list("text", flat=True).get(pk=run.pk)
        ImportChunk.objects.bulk_create(
            ImportChunk(run_id=run.pk, number=n, text=text[start : start + CHUNK_CHARS])
            for n, start in enumerate(range(0, len(text), CHUNK_CHARS), 1)
        )
        ImportRun.objects.filter(pk=run.pk).update(size=len(text))


def chunks_to_texts(apps, schema_editor):
    ImportRun = apps.get_model("citations", "ImportRun")
    ImportChunk = apps.get_model("citations", "ImportChunk")
    for run in ImportRun.objects.only("pk").iterator():
        texts = ImportChunk.objects.filter(run_id=run.pk).order_by("number")
        text = "".join(texts.values_list("text", flat=True))
        ImportRun.objects.filter(pk=run.pk).update(text=text)


# From 0034_paper_cite_key.

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


# From 0037_citation_source_none_and_pith.

BY_THIS_SITE = ("editor", "reader_suggestion", "author")


def unclassified_edges_have_no_classifier(apps, schema_editor):
    """Edges with no role and no polarity were stored as an editor's: nobody classified them,
    so they have no classifier, time or user. An index's edges keep the index's name."""
    # The history keeps what was stored at the time.
    citation = apps.get_model("citations", "Citation")
    citation.objects.filter(
        role__isnull=True, polarity__isnull=True, source__in=BY_THIS_SITE
    ).update(source="", classified_at=None, classified_by=None, confidence=None)


# From 0038_author_slug_orcid.

SLUG_LENGTH = 220


def fill_slugs(apps, schema_editor):
    """Every author's slug from its name: ASCII, a suffix (-2, -3, ...) when taken, in the
    order the authors were created (as Author.save() gives them)."""
    Author = apps.get_model("citations", "Author")
    given = set()
    changed = []
    for author in Author.objects.order_by("pk").only("pk", "name").iterator(chunk_size=2000):
        base = slugify(author.name)[: SLUG_LENGTH - 8].strip("-") or "author"
        slug, n = base, 1
        while slug in given:
            n += 1
            slug = f"{base}-{n}"
        given.add(slug)
        author.slug = slug
        changed.append(author)
        if len(changed) >= 2000:
            Author.objects.bulk_update(changed, ["slug"])
            changed = []
    Author.objects.bulk_update(changed, ["slug"])


# The PostgreSQL-only objects citations 0020, 0025, 0031, 0032 and 0040 made with raw SQL, as
# they stand after 0042 (0040 replaced 0020's paper_dates_cover). Copied from those files;
# SQLite gets none of them, as before. Run after the schema operations above, which none of
# them reads.

HUB_COVER = (
    '"citations_citation" ("cited_paper_id") INCLUDE '
    '("role_id", "polarity_id", "citing_paper_id", "status", "published_at", "unpublish_at")'
)
OLD_HUB_COVER = (
    '"citations_citation" ("cited_paper_id") '
    'INCLUDE ("role_id", "polarity_id", "citing_paper_id", "status", "published_at")'
)
PAPER_DATES = (
    '"citations_paper" ("id") INCLUDE ("publication_date", "date_precision", "status")'
)
TRIGRAM_INDEXES = {
    "paper_byline_trgm": ("citations_paper", "byline"),
    "paper_institution_trgm": ("citations_paper", "institution"),
    "paper_arxiv_id_trgm": ("citations_paper", "arxiv_id"),
    "paper_doi_trgm": ("citations_paper", "doi"),
    "paper_summary_trgm": ("citations_paper", "summary"),
    "citation_context_trgm": ("citations_citation", "context"),
}
TITLE = "(UPPER(title::text))"
TITLE_INDEXES = {
    "paper_title_trgm": "USING gin (title gin_trgm_ops)",
    "paper_title_upper_trgm": f"USING gin ({TITLE} gin_trgm_ops)",
    "paper_title_upper_pattern": f"({TITLE} text_pattern_ops)",
}
STATISTICS = "paper_upper_institution_byline"


def create_postgresql_objects(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    # 0020, with 0040's paper_dates_cover
    schema_editor.execute('DROP INDEX IF EXISTS "citation_hub_cover"')
    schema_editor.execute(f'CREATE INDEX "citation_hub_cover" ON {HUB_COVER}')
    schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "paper_dates_cover" ON {PAPER_DATES}')
    # 0025
    for name, (table, column) in TRIGRAM_INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ({column} gin_trgm_ops)"
        )
    # 0031
    schema_editor.execute(
        f"CREATE STATISTICS IF NOT EXISTS {STATISTICS} "
        "ON (UPPER(institution::text)), (UPPER(byline::text)) FROM citations_paper"
    )
    schema_editor.execute("ANALYZE citations_paper")
    # 0032
    for name, definition in TITLE_INDEXES.items():
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON citations_paper {definition}")


def drop_postgresql_objects(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in TITLE_INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
    schema_editor.execute(f"DROP STATISTICS IF EXISTS {STATISTICS}")
    for name in TRIGRAM_INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
    schema_editor.execute('DROP INDEX IF EXISTS "paper_dates_cover"')
    schema_editor.execute('DROP INDEX IF EXISTS "citation_hub_cover"')
    schema_editor.execute(f'CREATE INDEX "citation_hub_cover" ON {OLD_HUB_COVER}')


# The data operations of 0026, 0034 and 0038 run as one step, and 0037's with the recounts of
# 0028, 0029 and 0036 as another at the end: each RunPython makes Django render every model of
# the project again. PaperFacetMembership (0028, deleted by 0042) is left out: nothing here
# reads it.


def fill_new_columns(apps, schema_editor):
    texts_to_chunks(apps, schema_editor)
    fill_cite_keys(apps, schema_editor)
    fill_slugs(apps, schema_editor)


def reclassify_and_recount(apps, schema_editor):
    from citations.stats.counts import recount_citations
    from citations.stats.facet_counts import recount_paper_facets

    unclassified_edges_have_no_classifier(apps, schema_editor)
    recount_paper_facets(apps=apps)
    recount_citations(apps=apps)


class Migration(migrations.Migration):

    replaces = [('citations', '0017_paper_updated_index'), ('citations', '0018_citing_sentence_section_and_representative_reason'), ('citations', '0019_dashboard_indexes'), ('citations', '0020_timeline_covering_indexes'), ('citations', '0021_paper_code_url'), ('citations', '0022_possible_duplicate_pairs'), ('citations', '0023_citation_list_indexes'), ('citations', '0024_paper_list_indexes'), ('citations', '0025_admin_search_trigram_indexes'), ('citations', '0026_import_chunks'), ('citations', '0027_doi_lower_case'), ('citations', '0028_paper_facet_counts'), ('citations', '0029_citing_timeline_counts'), ('citations', '0030_paper_cite_key_base'), ('citations', '0031_explorer_filter_statistics'), ('citations', '0032_title_search_indexes'), ('citations', '0033_status_scheduled'), ('citations', '0034_paper_cite_key'), ('citations', '0035_remove_paper_cite_key_base'), ('citations', '0036_recount_known_date_facets'), ('citations', '0037_citation_source_none_and_pith'), ('citations', '0038_author_slug_orcid'), ('citations', '0039_paper_abstract_bounded'), ('citations', '0040_paper_dates_cover_status'), ('citations', '0041_author_history_slug_aliases_merges'), ('citations', '0042_drop_paper_facet_membership')]

    dependencies = [
        ('bottlenecks', '0002_claims_signals_tests'),
        ('bottlenecks', '0005_status_submitted_for_review'),
        ('citations', '0016_typed_paper_tags'),
        ('rlscaling', '0004_tag'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(fields=['-updated_at'], name='paper_updated'),
        ),
        migrations.AddField(
            model_name='citation',
            name='context_section',
            field=models.CharField(blank=True, help_text='Where in the citing paper the sentence stands, e.g. “Related work”.', max_length=120, verbose_name='section of the citing sentence'),
        ),
        migrations.AddField(
            model_name='citation',
            name='representative_reason',
            field=models.CharField(blank=True, help_text="The editor's one-line reason, shown on the hub beside a representative paper.", max_length=200, verbose_name='why representative'),
        ),
        migrations.AddField(
            model_name='historicalcitation',
            name='context_section',
            field=models.CharField(blank=True, help_text='Where in the citing paper the sentence stands, e.g. “Related work”.', max_length=120, verbose_name='section of the citing sentence'),
        ),
        migrations.AddField(
            model_name='historicalcitation',
            name='representative_reason',
            field=models.CharField(blank=True, help_text="The editor's one-line reason, shown on the hub beside a representative paper.", max_length=200, verbose_name='why representative'),
        ),
        migrations.AlterField(
            model_name='citation',
            name='is_representative',
            field=models.BooleanField(default=False, help_text="One of the hub's few editor-chosen representative citing papers (at most 6 per cited paper)."),
        ),
        migrations.AlterField(
            model_name='historicalcitation',
            name='is_representative',
            field=models.BooleanField(default=False, help_text="One of the hub's few editor-chosen representative citing papers (at most 6 per cited paper)."),
        ),
        migrations.AddIndex(
            model_name='citation',
            index=models.Index(condition=models.Q(('role__isnull', True), ('polarity__isnull', True), _connector='OR'), fields=['cited_paper'], name='citation_unclassified'),
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(condition=models.Q(('arxiv_id', ''), ('doi', ''), ('url', '')), fields=['id'], name='paper_no_identifier'),
        ),
        migrations.AddField(
            model_name='historicalpaper',
            name='code_url',
            field=models.URLField(blank=True, db_default='', default='', help_text="The paper's code repository, e.g. https://github.com/org/repo.", max_length=500, verbose_name='code'),
        ),
        migrations.AddField(
            model_name='paper',
            name='code_url',
            field=models.URLField(blank=True, db_default='', default='', help_text="The paper's code repository, e.g. https://github.com/org/repo.", max_length=500, verbose_name='code'),
        ),
        migrations.CreateModel(
            name='DuplicateScan',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('requested_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('pairs', models.PositiveIntegerField(blank=True, null=True)),
            ],
            options={
                'ordering': ['-requested_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='PossibleDuplicatePair',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.CharField(max_length=300)),
                ('score', models.FloatField(default=100.0)),
                ('found_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('dismissed_at', models.DateTimeField(blank=True, null=True)),
                ('dismissed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('first', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='citations.paper')),
                ('second', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='citations.paper')),
            ],
            options={
                'indexes': [models.Index(models.OrderBy(models.F('score'), descending=True), models.F('first'), models.F('second'), condition=models.Q(('dismissed_at', None)), name='duplicate_pair_open'), models.Index(fields=['second'], name='duplicate_pair_second')],
                'constraints': [models.UniqueConstraint(fields=('first', 'second'), name='duplicate_pair_unique')],
            },
        ),
        migrations.AddIndex(
            model_name='citation',
            index=models.Index(fields=['created_at', 'id'], name='citation_created'),
        ),
        migrations.AddIndex(
            model_name='citation',
            index=models.Index(fields=['updated_at', 'id'], name='citation_updated'),
        ),
        migrations.AddIndex(
            model_name='citation',
            index=models.Index(fields=['cited_paper', 'id'], name='citation_cited_id'),
        ),
        migrations.AddIndex(
            model_name='citation',
            index=models.Index(condition=models.Q(('is_influential', True)), fields=['id'], name='citation_influential'),
        ),
        migrations.AddIndex(
            model_name='citation',
            index=models.Index(condition=models.Q(('is_influential', True)), fields=['cited_paper'], name='citation_cited_influential'),
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(condition=models.Q(('status', 'published')), fields=['title', 'id'], name='paper_published_title'),
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(django.db.models.functions.text.Lower('title'), models.F('id'), condition=models.Q(('status', 'published')), name='paper_published_title_ci'),
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(condition=models.Q(('status', 'published')), fields=['-created_at', '-id'], name='paper_published_created'),
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(condition=models.Q(('status', 'published')), fields=['-updated_at', '-id'], name='paper_published_updated'),
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(condition=models.Q(('status', 'published')), fields=['published_at'], include=('unpublish_at',), name='paper_published_count'),
        ),
        migrations.AddField(
            model_name='importrun',
            name='size',
            field=models.PositiveBigIntegerField(default=0, help_text='Characters of text stored.'),
        ),
        migrations.AlterField(
            model_name='importrun',
            name='records',
            field=models.PositiveIntegerField(default=0, help_text='Lines of a JSONL file until its dry run counts the records.'),
        ),
        migrations.AlterField(
            model_name='importrun',
            name='state',
            field=models.CharField(choices=[('checking', 'Dry run in progress'), ('previewed', 'Dry run shown'), ('queued', 'Queued'), ('running', 'Running'), ('done', 'Applied'), ('failed', 'Failed')], default='previewed', max_length=10),
        ),
        migrations.CreateModel(
            name='ImportChunk',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField()),
                ('text', models.TextField()),
                ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='citations.importrun')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('run', 'number'), name='import_chunk_run_number')],
            },
        ),
        migrations.RunSQL(
            sql='UPDATE "citations_paper" SET "doi" = LOWER("doi") WHERE "doi" <> LOWER("doi")',
            reverse_sql='',
        ),
        migrations.CreateModel(
            name='PaperFacetCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('scope', models.CharField(max_length=10)),
                ('dimension', models.CharField(max_length=10)),
                ('value', models.IntegerField(default=0)),
                ('quarter', models.IntegerField(default=0)),
                ('count', models.IntegerField(default=0)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('scope', 'dimension', 'value', 'quarter'), name='paper_facet_count_unique')],
            },
        ),
        migrations.CreateModel(
            name='CitingTimelineCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('quarter', models.DateField(null=True)),
                ('date_precision', models.CharField(max_length=10)),
                ('count', models.PositiveIntegerField()),
                ('paper', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='citing_timeline_counts', to='citations.paper')),
                ('polarity', models.ForeignKey(null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='citations.citationpolarity')),
                ('role', models.ForeignKey(null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='citations.citationrole')),
            ],
        ),
        migrations.AddField(
            model_name='historicalpaper',
            name='cite_key_base',
            field=models.CharField(blank=True, editable=False, max_length=1000),
        ),
        migrations.AddField(
            model_name='paper',
            name='cite_key_base',
            field=models.CharField(blank=True, editable=False, max_length=1000),
        ),
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(fields=['cite_key_base', 'id'], name='paper_cite_key_base'),
        ),
        migrations.AlterField(
            model_name='citation',
            name='status',
            field=models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10),
        ),
        migrations.AlterField(
            model_name='historicalcitation',
            name='status',
            field=models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10),
        ),
        migrations.AlterField(
            model_name='historicalpaper',
            name='status',
            field=models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10),
        ),
        migrations.AlterField(
            model_name='paper',
            name='status',
            field=models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10),
        ),
        migrations.AddField(
            model_name='historicalpaper',
            name='cite_key',
            field=models.CharField(blank=True, db_default='', default='', help_text='How the exports (BibTeX, RIS, CSL-JSON) name the paper. Assigned once when the paper is created; people cite it from their .bib files, so change it only to correct it. Left empty, the paper keeps the key it has.', max_length=1000, validators=[django.core.validators.RegexValidator('\\A[A-Za-z0-9_:./+-]+\\Z', 'Letters, digits and _ : . / + - only: the characters a BibTeX key may hold in every tool.')], verbose_name='cite key'),
        ),
        migrations.AddField(
            model_name='paper',
            name='cite_key',
            field=models.CharField(blank=True, db_default='', default='', help_text='How the exports (BibTeX, RIS, CSL-JSON) name the paper. Assigned once when the paper is created; people cite it from their .bib files, so change it only to correct it. Left empty, the paper keeps the key it has.', max_length=1000, validators=[django.core.validators.RegexValidator('\\A[A-Za-z0-9_:./+-]+\\Z', 'Letters, digits and _ : . / + - only: the characters a BibTeX key may hold in every tool.')], verbose_name='cite key'),
        ),
        migrations.AddConstraint(
            model_name='paper',
            constraint=models.UniqueConstraint(condition=models.Q(('cite_key', ''), _negated=True), fields=('cite_key',), name='unique_paper_cite_key', violation_error_message='Another paper has this cite key: each key names one paper.'),
        ),
        migrations.AddField(
            model_name='author',
            name='slug',
            field=models.SlugField(db_index=False, default='', max_length=220),
            preserve_default=False,
        ),
        # The rows 0026, 0034 and 0038 filled, in one step: import texts in chunks, cite keys
        # (from 0030's base keys), author slugs (before they become unique).
        migrations.RunPython(fill_new_columns, chunks_to_texts),
        migrations.RemoveField(
            model_name='importrun',
            name='text',
        ),
        migrations.RemoveIndex(
            model_name='paper',
            name='paper_cite_key_base',
        ),
        migrations.RemoveField(
            model_name='historicalpaper',
            name='cite_key_base',
        ),
        migrations.RemoveField(
            model_name='paper',
            name='cite_key_base',
        ),
        migrations.AlterField(
            model_name='citation',
            name='source',
            field=models.CharField(blank=True, choices=[('', 'Not classified'), ('editor', 'Editor'), ('reader_suggestion', 'Editor, on reader suggestion'), ('author', 'Author'), ('semantic_scholar', 'Imported from Semantic Scholar'), ('openalex', 'Imported from OpenAlex'), ('pith', 'Classified by Pith')], default='', help_text='Who classified it (none while it has no role or polarity). Changing the role or polarity records “Editor” unless you choose another provenance here.', max_length=20, verbose_name='provenance'),
        ),
        migrations.AlterField(
            model_name='historicalcitation',
            name='source',
            field=models.CharField(blank=True, choices=[('', 'Not classified'), ('editor', 'Editor'), ('reader_suggestion', 'Editor, on reader suggestion'), ('author', 'Author'), ('semantic_scholar', 'Imported from Semantic Scholar'), ('openalex', 'Imported from OpenAlex'), ('pith', 'Classified by Pith')], default='', help_text='Who classified it (none while it has no role or polarity). Changing the role or polarity records “Editor” unless you choose another provenance here.', max_length=20, verbose_name='provenance'),
        ),
        migrations.AlterField(
            model_name='author',
            name='slug',
            field=models.SlugField(blank=True, max_length=220, unique=True),
        ),
        migrations.AddField(
            model_name='author',
            name='orcid',
            field=models.CharField(blank=True, db_default='', default='', help_text='e.g. 0000-0002-1825-0097, without https://orcid.org/.', max_length=19, validators=[django.core.validators.RegexValidator('\\A\\d{4}-\\d{4}-\\d{4}-\\d{3}[\\dX]\\Z', 'An ORCID iD looks like 0000-0002-1825-0097.')], verbose_name='ORCID iD'),
        ),
        migrations.AlterField(
            model_name='historicalpaper',
            name='abstract',
            field=models.TextField(blank=True, validators=[django.core.validators.MaxLengthValidator(100000)]),
        ),
        migrations.AlterField(
            model_name='paper',
            name='abstract',
            field=models.TextField(blank=True, validators=[django.core.validators.MaxLengthValidator(100000)]),
        ),
        migrations.CreateModel(
            name='AuthorMerge',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('merged_name', models.CharField(max_length=200)),
                ('merged_slug', models.SlugField(max_length=220)),
                ('merged_at', models.DateTimeField(auto_now_add=True)),
                ('snapshot', models.JSONField()),
                ('undone_at', models.DateTimeField(blank=True, null=True)),
                ('kept', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='merges', to='citations.author')),
                ('merged_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-merged_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='AuthorSlugAlias',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(max_length=220, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('author', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='slug_aliases', to='citations.author')),
            ],
            options={
                'verbose_name_plural': 'author slug aliases',
            },
        ),
        migrations.CreateModel(
            name='HistoricalAuthor',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('name', models.CharField(db_index=True, max_length=200)),
                ('slug', models.SlugField(blank=True, max_length=220)),
                ('orcid', models.CharField(blank=True, db_default='', default='', help_text='e.g. 0000-0002-1825-0097, without https://orcid.org/.', max_length=19, validators=[django.core.validators.RegexValidator('\\A\\d{4}-\\d{4}-\\d{4}-\\d{3}[\\dX]\\Z', 'An ORCID iD looks like 0000-0002-1825-0097.')], verbose_name='ORCID iD')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'historical author',
                'verbose_name_plural': 'historical authors',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        # 0037's edges without a classifier, then the counts of 0028, 0029 and 0036, once,
        # from the rows as they end up.
        migrations.RunPython(reclassify_and_recount, migrations.RunPython.noop),
        TrigramExtension(),
        migrations.RunPython(create_postgresql_objects, drop_postgresql_objects, elidable=False),
    ]
