# The search document of 0005, rebuilt without a per-row author lookup on bulk paths: 0005's
# row trigger looked up each paper's authors with a plan PL/pgSQL cached while the authorship
# table was small (a sequential scan), and the authorship trigger re-fired it for every paper,
# so generate_corpus's COPY of 400k authorships ran for tens of minutes. Now one SQL function
# builds the document; the paper trigger looks authors up only on UPDATE (an inserted paper has
# none yet), and the authorship trigger rewrites the touched papers in one set-based UPDATE.

from django.db import migrations

FORWARD = """
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

DROP TRIGGER IF EXISTS citations_paper_search_document ON citations_paper;
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
"""

BACKWARD = """
DROP TRIGGER IF EXISTS citations_paper_search_document ON citations_paper;
CREATE TRIGGER citations_paper_search_document
    BEFORE INSERT OR UPDATE OF title, byline, institution, summary, abstract, arxiv_id, doi,
        search_document
    ON citations_paper FOR EACH ROW EXECUTE FUNCTION citations_paper_search_document();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0008_citation_counts"),
    ]

    operations = [migrations.RunPython(create, drop, elidable=False)]
