"""Writing many rows at once: COPY on PostgreSQL, bulk_create elsewhere. Used by the bulk
importer (citations/importers/bulk.py) and the synthetic corpus generator (bench/corpus.py)."""

import itertools

from django.db import connection, models


def allocate_ids(model, count):
    """Primary keys for rows we must reference before they are written."""
    if count == 0:
        return []
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                [table, count],
            )
            return [row[0] for row in cursor.fetchall()]
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        start = cursor.fetchone()[0] + 1
    return list(range(start, start + count))


def unnamed_defaults(model, fields):
    """(column, value) for the model's fields not in `fields` that have no database default:
    their model default ("" for text), which a raw COPY or INSERT would otherwise leave NULL."""
    return [
        (field.column, field.get_db_prep_save(field.get_default(), connection))
        for field in model._meta.concrete_fields
        if field.name not in fields and not field.primary_key and not field.has_db_default()
    ]


def copy_rows(table, columns, rows):
    """COPY rows (tuples in `columns` order) into a PostgreSQL table; returns how many."""
    quoted = ", ".join(connection.ops.quote_name(column) for column in columns)
    written = 0
    with (
        connection.cursor() as cursor,
        cursor.copy(f"COPY {connection.ops.quote_name(table)} ({quoted}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(row)
            written += 1
    return written


def write_rows(model, fields, rows, batch_size=5000, report=None):
    """Write rows (tuples in `fields` order): COPY on PostgreSQL, bulk_create elsewhere.
    `report(written)` is called as rows go out, and `report(written, done=True)` at the end."""
    report = report or (lambda written, done=False: None)
    written = 0
    if connection.vendor == "postgresql":
        # COPY leaves every column it is not given to the database: give the fields without
        # a database default their model default ("" for text), as bulk_create would.
        defaults = unnamed_defaults(model, fields)
        extra = tuple(value for _, value in defaults)
        columns = [model._meta.get_field(field).column for field in fields]
        columns += [column for column, _ in defaults]

        # JSON values go out through the field (psycopg would send a list as an array).
        json = [
            (index, model._meta.get_field(field))
            for index, field in enumerate(fields)
            if isinstance(model._meta.get_field(field), models.JSONField)
        ]

        def counted():
            nonlocal written
            for row in rows:
                if json:
                    row = list(row)
                    for index, field in json:
                        row[index] = field.get_db_prep_save(row[index], connection)
                    row = tuple(row)
                yield row + extra
                written += 1
                report(written)

        copy_rows(model._meta.db_table, columns, counted())
    else:
        attnames = [model._meta.get_field(field).attname for field in fields]
        iterator = iter(rows)
        while batch := list(itertools.islice(iterator, batch_size)):
            model.objects.bulk_create(
                [model(**dict(zip(attnames, row, strict=True))) for row in batch]
            )
            written += len(batch)
            report(written)
    report(written, done=True)
    return written
