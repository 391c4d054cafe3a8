# 0001_initial to 0016_typed_paper_tags, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.
# The raw SQL only PostgreSQL ran, as it stands at the end, comes last.

import citations.identifiers
import django.contrib.postgres.search
import django.core.validators
import django.db.models.deletion
import simple_history.models
import taggit.managers
from django.conf import settings
from django.db import migrations, models


# The PostgreSQL-only objects citations 0002, 0003, 0005, 0007 and 0009 made with raw SQL, as
# they stand after 0016 (0009's search document functions and paper trigger replaced 0005's).
# Copied from those files; SQLite gets none of them, as before.

SEARCH_DOCUMENT = """
CREATE OR REPLACE FUNCTION citations_paper_document(
    title text, arxiv_id text, doi text, byline text, institution text, authors text,
    summary text, abstract text
) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
    SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
        || setweight(to_tsvector('simple'::regconfig,
            coalesce(arxiv_id, '') || ' ' || coalesce(doi, '')), 'A')
        || setweight(to_tsvector('english'::regconfig, coalesce(byline, '') || ' '
            || coalesce(institution, '') || ' ' || coalesce(authors, '')), 'B')
        || setweight(to_tsvector('english'::regconfig, coalesce(summary, '')), 'B')
        || setweight(to_tsvector('english'::regconfig, coalesce(abstract, '')), 'C')
$$;

CREATE OR REPLACE FUNCTION citations_paper_search_document() RETURNS trigger AS $$
DECLARE
    authors text := '';
BEGIN
    IF TG_OP = 'UPDATE' THEN
        EXECUTE 'SELECT string_agg(author.name, '' '' ORDER BY authorship.position)
                 FROM citations_authorship authorship
                 JOIN citations_author author ON author.id = authorship.author_id
                 WHERE authorship.paper_id = $1'
        INTO authors USING NEW.id;
    END IF;
    NEW.search_document := citations_paper_document(NEW.title, NEW.arxiv_id, NEW.doi,
        NEW.byline, NEW.institution, authors, NEW.summary, NEW.abstract);
    RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER citations_paper_search_document
    BEFORE INSERT OR UPDATE OF title, byline, institution, summary, abstract, arxiv_id, doi
    ON citations_paper FOR EACH ROW EXECUTE FUNCTION citations_paper_search_document();

CREATE OR REPLACE FUNCTION citations_authorship_search_document() RETURNS trigger AS $$
BEGIN
    UPDATE citations_paper paper
    SET search_document = citations_paper_document(paper.title, paper.arxiv_id, paper.doi,
        paper.byline, paper.institution, touched.authors, paper.summary, paper.abstract)
    FROM (
        SELECT changed.paper_id,
               string_agg(author.name, ' ' ORDER BY authorship.position) AS authors
        FROM (SELECT DISTINCT paper_id FROM changed_rows) changed
        LEFT JOIN citations_authorship authorship ON authorship.paper_id = changed.paper_id
        LEFT JOIN citations_author author ON author.id = authorship.author_id
        GROUP BY changed.paper_id
    ) touched
    WHERE paper.id = touched.paper_id;
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER citations_authorship_search_document_insert
    AFTER INSERT ON citations_authorship REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION citations_authorship_search_document();
CREATE TRIGGER citations_authorship_search_document_delete
    AFTER DELETE ON citations_authorship REFERENCING OLD TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION citations_authorship_search_document();

CREATE INDEX IF NOT EXISTS paper_search_document ON citations_paper USING gin (search_document);
"""

DROP_SEARCH_DOCUMENT = """
DROP INDEX IF EXISTS paper_search_document;
DROP TRIGGER IF EXISTS citations_authorship_search_document_insert ON citations_authorship;
DROP TRIGGER IF EXISTS citations_authorship_search_document_delete ON citations_authorship;
DROP FUNCTION IF EXISTS citations_authorship_search_document();
DROP TRIGGER IF EXISTS citations_paper_search_document ON citations_paper;
DROP FUNCTION IF EXISTS citations_paper_search_document();
DROP FUNCTION IF EXISTS citations_paper_document(text, text, text, text, text, text, text, text);
"""

INDEXES = {
    # 0002
    "paper_research_index": (
        '"citations_paper" ("publication_date" DESC NULLS LAST, "id" DESC) '
        "WHERE \"in_research_index\" AND \"status\" = 'published'"
    ),
    # 0003 (citation_hub_cover gains unpublish_at in 0020)
    "paper_research_oldest": (
        '"citations_paper" ("publication_date" ASC NULLS LAST, "id" ASC) '
        'WHERE "in_research_index" AND "status" = \'published\''
    ),
    "paper_api_sort_date": (
        '"citations_paper" ((COALESCE("publication_date", \'0001-01-01\'::date)) DESC, "id" DESC)'
    ),
    "paper_date_nulls_last": '"citations_paper" ("publication_date" DESC NULLS LAST, "id" ASC)',
    "citation_hub_cover": (
        '"citations_citation" ("cited_paper_id") '
        'INCLUDE ("role_id", "polarity_id", "citing_paper_id", "status", "published_at")'
    ),
    "paper_not_published": (
        '"citations_paper" ("id") WHERE "status" <> \'published\' OR "published_at" IS NULL'
    ),
    "paper_published_at_live": (
        '"citations_paper" ("published_at") WHERE "status" = \'published\''
    ),
    "citation_representative": (
        '"citations_citation" ("cited_paper_id") WHERE "is_representative"'
    ),
    # 0007
    "paper_newest_nulls_last": (
        '"citations_paper" ("publication_date" DESC NULLS LAST, "id" DESC)'
    ),
}


def create_postgresql_objects(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, definition in INDEXES.items():
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON {definition}')
    schema_editor.execute(SEARCH_DOCUMENT)


def drop_postgresql_objects(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(DROP_SEARCH_DOCUMENT)
    for name in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):

    replaces = [('citations', '0001_initial'), ('citations', '0002_paper_ordering_indexes'), ('citations', '0003_scale_indexes'), ('citations', '0004_identity_and_imports'), ('citations', '0005_paper_search_document'), ('citations', '0006_identifier_fields'), ('citations', '0007_paper_newest_first'), ('citations', '0008_citation_counts'), ('citations', '0009_search_document_set_based'), ('citations', '0010_paper_publication_type_venue_category'), ('citations', '0011_citation_provenance'), ('citations', '0012_unpublish_at'), ('citations', '0013_history_related_snapshot'), ('citations', '0014_paper_date_precision_arxiv_versions'), ('citations', '0015_publishing_review_and_unclassified'), ('citations', '0015_correction_suggestions'), ('citations', '0016_typed_paper_tags')]

    initial = True

    dependencies = [
        ('bottlenecks', '0001_initial'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('rlscaling', '0004_tag'),
        ('taggit', '0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Author',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200, unique=True)),
            ],
            options={
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='CitationPolarity',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=60, unique=True)),
                ('slug', models.SlugField(max_length=60, unique=True)),
                ('description', models.TextField(blank=True)),
                ('order', models.PositiveSmallIntegerField(default=0)),
            ],
            options={
                'verbose_name': 'citation polarity',
                'verbose_name_plural': 'citation polarities',
                'ordering': ['order', 'name'],
                'abstract': False,
            },
        ),
        migrations.CreateModel(
            name='CitationRole',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=60, unique=True)),
                ('slug', models.SlugField(max_length=60, unique=True)),
                ('description', models.TextField(blank=True)),
                ('order', models.PositiveSmallIntegerField(default=0)),
            ],
            options={
                'verbose_name': 'citation role',
                'ordering': ['order', 'name'],
                'abstract': False,
            },
        ),
        migrations.CreateModel(
            name='Authorship',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0)),
                ('author', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='authorships', to='citations.author')),
            ],
            options={
                'ordering': ['position', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Paper',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('title', models.CharField(max_length=500)),
                ('slug', models.SlugField(max_length=200, unique=True)),
                ('byline', models.CharField(blank=True, help_text='First author or organisation, as shown on the research index.', max_length=200)),
                ('institution', models.CharField(blank=True, max_length=200)),
                ('publication_date', models.DateField(blank=True, db_index=True, null=True)),
                ('arxiv_id', citations.identifiers.ArxivIdField(blank=True, help_text='e.g. 2510.13786 or hep-th/9901001; a prefix, URL or version suffix is removed.', max_length=32, verbose_name='arXiv id')),
                ('doi', citations.identifiers.DoiField(blank=True, help_text='e.g. 10.48550/arXiv.2510.13786; stored in lower case, without resolver URL.', max_length=200, verbose_name='DOI')),
                ('url', models.URLField(blank=True, max_length=500, verbose_name='URL')),
                ('abstract', models.TextField(blank=True)),
                ('summary', models.TextField(blank=True, help_text='Original one-paragraph editorial summary.')),
                ('is_canonical_reference', models.BooleanField(db_index=True, default=False)),
                ('in_research_index', models.BooleanField(db_index=True, default=True, help_text='List on the research index. Off for papers held only as citation records.')),
                ('authors', models.ManyToManyField(related_name='papers', through='citations.Authorship', to='citations.author')),
                ('layers', models.ManyToManyField(blank=True, help_text='Layers it bears on.', related_name='papers', to='bottlenecks.layer')),
                ('search_document', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('arxiv_category', models.CharField(blank=True, db_default='', default='', help_text="e.g. cs.LG (BibTeX's primaryClass).", max_length=40, verbose_name='arXiv primary category')),
                ('publication_type', models.CharField(blank=True, choices=[('article', 'Journal article'), ('conference', 'Conference paper'), ('preprint', 'Preprint'), ('report', 'Technical report'), ('other', 'Other (blog post, release note, ...)')], db_default='', default='', help_text='Leave empty when unknown: an arXiv paper is then exported as a preprint.', max_length=20)),
                ('venue', models.CharField(blank=True, db_default='', default='', help_text='Journal or conference, e.g. NeurIPS 2025.', max_length=300)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('arxiv_versions', models.JSONField(blank=True, db_default=models.Value([], output_field=models.JSONField()), default=list, help_text='The versions seen, e.g. v1, v2; typing a versioned id above adds its own.', verbose_name='arXiv versions')),
                ('date_precision', models.CharField(choices=[('day', 'Day'), ('month', 'Month'), ('year', 'Year'), ('unknown', "Unknown: the date only keeps the editor's order")], db_default='day', default='day', help_text='How much of the publication date is a fact. “Unknown” shows no date anywhere (pages, exports, API); the date then only places the paper in the lists.', max_length=10, verbose_name='date known to the')),
            ],
            options={
                'ordering': (models.OrderBy(models.F('publication_date'), descending=True, nulls_last=True), models.OrderBy(models.F('id'), descending=True)),
                'abstract': False,
                'indexes': [models.Index(fields=['-publication_date', '-id'], name='paper_newest')],
                'constraints': [models.UniqueConstraint(condition=models.Q(('arxiv_id', ''), _negated=True), fields=('arxiv_id',), name='unique_paper_arxiv_id'), models.UniqueConstraint(condition=models.Q(('doi', ''), _negated=True), fields=('doi',), name='unique_paper_doi')],
            },
        ),
        migrations.AddField(
            model_name='authorship',
            name='paper',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='authorships', to='citations.paper'),
        ),
        migrations.CreateModel(
            name='Citation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('context', models.TextField(blank=True, help_text='The citing sentence, where known.')),
                ('is_representative', models.BooleanField(default=False, help_text="Show among the hub's representative citing papers.")),
                ('polarity', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='citations', to='citations.citationpolarity')),
                ('role', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='citations', to='citations.citationrole')),
                ('cited_paper', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='citations_received', to='citations.paper')),
                ('citing_paper', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='citations_made', to='citations.paper')),
                ('is_influential', models.BooleanField(blank=True, help_text="Semantic Scholar's isInfluential flag, when imported.", null=True)),
                ('source', models.CharField(choices=[('editor', 'Editor'), ('reader_suggestion', 'Editor, on reader suggestion'), ('author', 'Author'), ('semantic_scholar', 'Imported from Semantic Scholar'), ('openalex', 'Imported from OpenAlex')], default='editor', help_text='Who classified it. Changing the role or polarity records “Editor” unless you choose another provenance here.', max_length=20, verbose_name='provenance')),
                ('classified_at', models.DateTimeField(blank=True, null=True)),
                ('classified_by', models.ForeignKey(blank=True, help_text='The editor who set the role and polarity, when an editor did.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('confidence', models.DecimalField(blank=True, decimal_places=3, help_text="The source's confidence in its classification (0 to 1), where it gives one.", max_digits=4, null=True, validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1)])),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('publish_unclassified', models.BooleanField(default=False, help_text='Publish without a role or polarity: not classified yet, said so to readers.', verbose_name='unclassified')),
            ],
            options={
                'ordering': ['-id'],
                'abstract': False,
                'indexes': [models.Index(fields=['cited_paper', 'role'], name='citation_cited_role'), models.Index(fields=['cited_paper', 'polarity'], name='citation_cited_polarity')],
                'constraints': [models.UniqueConstraint(fields=('citing_paper', 'cited_paper'), name='unique_citation_edge'), models.CheckConstraint(condition=models.Q(('citing_paper', models.F('cited_paper')), _negated=True), name='citation_not_self'), models.CheckConstraint(condition=models.Q(('confidence__isnull', True), models.Q(('confidence__gte', 0), ('confidence__lte', 1)), _connector='OR'), name='citation_confidence_0_to_1')],
            },
        ),
        migrations.CreateModel(
            name='CorrectionSuggestion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.TextField(max_length=2000)),
                ('email', models.EmailField(blank=True, help_text='Given by the reader for a reply; optional.', max_length=254)),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('accepted', 'Accepted'), ('dismissed', 'Dismissed')], db_index=True, default='pending', max_length=10)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('citation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='suggestions', to='citations.citation')),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('suggested_polarity', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='citations.citationpolarity')),
                ('suggested_role', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='citations.citationrole')),
            ],
            options={
                'verbose_name': 'correction suggestion',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='HistoricalCitation',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(blank=True, editable=False)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('context', models.TextField(blank=True, help_text='The citing sentence, where known.')),
                ('is_representative', models.BooleanField(default=False, help_text="Show among the hub's representative citing papers.")),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('polarity', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='citations.citationpolarity')),
                ('role', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='citations.citationrole')),
                ('cited_paper', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='citations.paper')),
                ('citing_paper', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='citations.paper')),
                ('is_influential', models.BooleanField(blank=True, help_text="Semantic Scholar's isInfluential flag, when imported.", null=True)),
                ('source', models.CharField(choices=[('editor', 'Editor'), ('reader_suggestion', 'Editor, on reader suggestion'), ('author', 'Author'), ('semantic_scholar', 'Imported from Semantic Scholar'), ('openalex', 'Imported from OpenAlex')], default='editor', help_text='Who classified it. Changing the role or polarity records “Editor” unless you choose another provenance here.', max_length=20, verbose_name='provenance')),
                ('classified_at', models.DateTimeField(blank=True, null=True)),
                ('classified_by', models.ForeignKey(blank=True, db_constraint=False, help_text='The editor who set the role and polarity, when an editor did.', null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('confidence', models.DecimalField(blank=True, decimal_places=3, help_text="The source's confidence in its classification (0 to 1), where it gives one.", max_digits=4, null=True, validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1)])),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
                ('publish_unclassified', models.BooleanField(default=False, help_text='Publish without a role or polarity: not classified yet, said so to readers.', verbose_name='unclassified')),
            ],
            options={
                'verbose_name': 'historical citation',
                'verbose_name_plural': 'historical citations',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalCitationPolarity',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('name', models.CharField(db_index=True, max_length=60)),
                ('slug', models.SlugField(max_length=60)),
                ('description', models.TextField(blank=True)),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'historical citation polarity',
                'verbose_name_plural': 'historical citation polarities',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalCitationRole',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('name', models.CharField(db_index=True, max_length=60)),
                ('slug', models.SlugField(max_length=60)),
                ('description', models.TextField(blank=True)),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'historical citation role',
                'verbose_name_plural': 'historical citation roles',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalPaper',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(blank=True, editable=False)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('title', models.CharField(max_length=500)),
                ('slug', models.SlugField(max_length=200)),
                ('byline', models.CharField(blank=True, help_text='First author or organisation, as shown on the research index.', max_length=200)),
                ('institution', models.CharField(blank=True, max_length=200)),
                ('publication_date', models.DateField(blank=True, db_index=True, null=True)),
                ('arxiv_id', citations.identifiers.ArxivIdField(blank=True, help_text='e.g. 2510.13786 or hep-th/9901001; a prefix, URL or version suffix is removed.', max_length=32, verbose_name='arXiv id')),
                ('doi', citations.identifiers.DoiField(blank=True, help_text='e.g. 10.48550/arXiv.2510.13786; stored in lower case, without resolver URL.', max_length=200, verbose_name='DOI')),
                ('url', models.URLField(blank=True, max_length=500, verbose_name='URL')),
                ('abstract', models.TextField(blank=True)),
                ('summary', models.TextField(blank=True, help_text='Original one-paragraph editorial summary.')),
                ('is_canonical_reference', models.BooleanField(db_index=True, default=False)),
                ('in_research_index', models.BooleanField(db_index=True, default=True, help_text='List on the research index. Off for papers held only as citation records.')),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('search_document', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('arxiv_category', models.CharField(blank=True, db_default='', default='', help_text="e.g. cs.LG (BibTeX's primaryClass).", max_length=40, verbose_name='arXiv primary category')),
                ('publication_type', models.CharField(blank=True, choices=[('article', 'Journal article'), ('conference', 'Conference paper'), ('preprint', 'Preprint'), ('report', 'Technical report'), ('other', 'Other (blog post, release note, ...)')], db_default='', default='', help_text='Leave empty when unknown: an arXiv paper is then exported as a preprint.', max_length=20)),
                ('venue', models.CharField(blank=True, db_default='', default='', help_text='Journal or conference, e.g. NeurIPS 2025.', max_length=300)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
                ('arxiv_versions', models.JSONField(blank=True, db_default=models.Value([], output_field=models.JSONField()), default=list, help_text='The versions seen, e.g. v1, v2; typing a versioned id above adds its own.', verbose_name='arXiv versions')),
                ('date_precision', models.CharField(choices=[('day', 'Day'), ('month', 'Month'), ('year', 'Year'), ('unknown', "Unknown: the date only keeps the editor's order")], db_default='day', default='day', help_text='How much of the publication date is a fact. “Unknown” shows no date anywhere (pages, exports, API); the date then only places the paper in the lists.', max_length=10, verbose_name='date known to the')),
            ],
            options={
                'verbose_name': 'historical paper',
                'verbose_name_plural': 'historical papers',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='ImportRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('name', models.CharField(blank=True, help_text="File name, or 'pasted text'.", max_length=200)),
                ('format', models.CharField(blank=True, max_length=20)),
                ('text', models.TextField()),
                ('publish', models.BooleanField(default=False)),
                ('state', models.CharField(choices=[('previewed', 'Dry run shown'), ('queued', 'Queued'), ('running', 'Running'), ('done', 'Applied'), ('failed', 'Failed')], default='previewed', max_length=10)),
                ('records', models.PositiveIntegerField(default=0)),
                ('processed', models.PositiveIntegerField(default=0)),
                ('dry_run', models.TextField(blank=True)),
                ('report', models.TextField(blank=True)),
                ('counts', models.JSONField(blank=True, default=dict)),
                ('task_id', models.CharField(blank=True, max_length=64)),
                ('created_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='PaperMerge',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('merged_slug', models.SlugField(max_length=200)),
                ('merged_title', models.CharField(max_length=500)),
                ('reason', models.CharField(blank=True, max_length=200)),
                ('merged_at', models.DateTimeField(auto_now_add=True)),
                ('snapshot', models.JSONField()),
                ('undone_at', models.DateTimeField(blank=True, null=True)),
                ('kept', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='merges', to='citations.paper')),
                ('merged_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-merged_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='PaperSlugAlias',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(max_length=200, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('paper', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='slug_aliases', to='citations.paper')),
            ],
            options={
                'verbose_name_plural': 'paper slug aliases',
            },
        ),
        migrations.CreateModel(
            name='TaggedPaper',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('content_object', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tagged_items', to='citations.paper')),
                ('tag', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tagged_papers', to='rlscaling.tag')),
            ],
            options={
                'indexes': [models.Index(fields=['tag', 'content_object'], name='tagged_paper_by_tag')],
                'constraints': [models.UniqueConstraint(fields=('content_object', 'tag'), name='tagged_paper_unique')],
            },
        ),
        migrations.AddField(
            model_name='paper',
            name='tags',
            field=taggit.managers.TaggableManager(blank=True, help_text='A comma-separated list of tags.', through='citations.TaggedPaper', to='rlscaling.Tag', verbose_name='Tags'),
        ),
        migrations.CreateModel(
            name='CitationCount',
            fields=[
                ('paper', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='citation_count', serialize=False, to='citations.paper')),
                ('total', models.PositiveIntegerField(default=0)),
                ('by_role', models.JSONField(default=dict)),
                ('by_polarity', models.JSONField(default=dict)),
                ('edges_changed_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'indexes': [models.Index(fields=['-total', '-paper'], name='citation_count_total')],
            },
        ),
        migrations.AddConstraint(
            model_name='authorship',
            constraint=models.UniqueConstraint(fields=('paper', 'author'), name='unique_authorship'),
        ),
        migrations.CreateModel(
            name='PaperIdentifier',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('scheme', models.CharField(choices=[('arxiv', 'arXiv id'), ('doi', 'DOI'), ('openalex', 'OpenAlex work id'), ('s2', 'Semantic Scholar paper id')], max_length=10)),
                ('value', models.CharField(max_length=200)),
                ('paper', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='other_identifiers', to='citations.paper')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('scheme', 'value'), name='unique_paper_identifier')],
            },
        ),
        migrations.CreateModel(
            name='PendingCitation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('direction', models.CharField(default='cites', max_length=8)),
                ('scheme', models.CharField(choices=[('arxiv', 'arXiv id'), ('doi', 'DOI'), ('openalex', 'OpenAlex work id'), ('s2', 'Semantic Scholar paper id')], max_length=10)),
                ('value', models.CharField(max_length=200)),
                ('role_slug', models.SlugField(blank=True, max_length=60)),
                ('context', models.TextField(blank=True)),
                ('is_influential', models.BooleanField(null=True)),
                ('source', models.CharField(max_length=20)),
                ('paper', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pending_citations', to='citations.paper')),
            ],
            options={
                'indexes': [models.Index(fields=['scheme', 'value'], name='pending_citation_target')],
                'constraints': [models.UniqueConstraint(fields=('paper', 'direction', 'scheme', 'value'), name='unique_pending_citation')],
            },
        ),
        migrations.RunPython(create_postgresql_objects, drop_postgresql_objects, elidable=False),
    ]
