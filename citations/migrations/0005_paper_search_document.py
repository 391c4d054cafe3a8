# A stored full-text document per paper: at 100k papers the search computed
# to_tsvector() over every row for each request (and again for the count). On PostgreSQL a
# trigger keeps `search_document` up to date on every write path (save(), update(), COPY in
# generate_corpus, importers) and a GIN index serves `@@`; authors are folded in by a
# statement-level trigger on authorships. Elsewhere the column stays empty and search()
# falls back to icontains.

import django.contrib.postgres.search
from django.db import migrations

DOCUMENT = """
    setweight(to_tsvector('english', coalesce(NEW.title, '')), 'A')
    || setweight(to_tsvector('simple', coalesce(NEW.arxiv_id, '') || ' ' || coalesce(NEW.doi, '')), 'A')
    || setweight(to_tsvector('english', coalesce(NEW.byline, '') || ' ' || coalesce(NEW.institution, '')
        || ' ' || coalesce((
            SELECT string_agg(author.name, ' ')
            FROM citations_authorship authorship
            JOIN citations_author author ON author.id = authorship.author_id
            WHERE authorship.paper_id = NEW.id), '')), 'B')
    || setweight(to_tsvector('english', coalesce(NEW.summary, '')), 'B')
    || setweight(to_tsvector('english', coalesce(NEW.abstract, '')), 'C')
"""

FORWARD = f"""
CREATE OR REPLACE FUNCTION citations_paper_search_document() RETURNS trigger AS $$
BEGIN
    NEW.search_document := {DOCUMENT};
    RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER citations_paper_search_document
    BEFORE INSERT OR UPDATE OF title, byline, institution, summary, abstract, arxiv_id, doi,
        search_document
    ON citations_paper FOR EACH ROW EXECUTE FUNCTION citations_paper_search_document();

-- Authorships change a paper's document: recompute it once per statement (a COPY of 400k
-- authorships updates each paper once, not once per row).
CREATE OR REPLACE FUNCTION citations_authorship_search_document() RETURNS trigger AS $$
BEGIN
    UPDATE citations_paper SET search_document = NULL
    WHERE id IN (SELECT paper_id FROM changed_rows);
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER citations_authorship_search_document_insert
    AFTER INSERT ON citations_authorship REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION citations_authorship_search_document();
CREATE TRIGGER citations_authorship_search_document_delete
    AFTER DELETE ON citations_authorship REFERENCING OLD TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION citations_authorship_search_document();

UPDATE citations_paper SET search_document = NULL;
CREATE INDEX IF NOT EXISTS paper_search_document ON citations_paper USING gin (search_document);
"""

BACKWARD = """
DROP INDEX IF EXISTS paper_search_document;
DROP TRIGGER IF EXISTS citations_authorship_search_document_insert ON citations_authorship;
DROP TRIGGER IF EXISTS citations_authorship_search_document_delete ON citations_authorship;
DROP FUNCTION IF EXISTS citations_authorship_search_document();
DROP TRIGGER IF EXISTS citations_paper_search_document ON citations_paper;
DROP FUNCTION IF EXISTS citations_paper_search_document();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0004_identity_and_imports"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="search_document",
            field=django.contrib.postgres.search.SearchVectorField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name="historicalpaper",
            name="search_document",
            field=django.contrib.postgres.search.SearchVectorField(editable=False, null=True),
        ),
        migrations.RunPython(create, drop, elidable=False),
    ]
