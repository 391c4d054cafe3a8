"""Indexes for orderings that put NULLs first ascending (last descending), as the lists'
keyset cursors order them (apikit.pagination)."""

from django.db import models
from django.db.models import F, OrderBy


class NullsFirstIndex(models.Index):
    """An index over `F(name)` terms and `F(name).asc(nulls_first=True)` or
    `.desc(nulls_last=True)` ones. PostgreSQL sorts NULLs as the largest values unless an
    index says otherwise, so there the nulls are declared; SQLite sorts them as the smallest
    already (first ascending, last descending) and refuses to declare it, so there the same
    index is created plainly over the field names."""

    def create_sql(self, model, schema_editor, using="", **kwargs):
        if schema_editor.connection.vendor == "postgresql" or not self.expressions:
            return super().create_sql(model, schema_editor, using=using, **kwargs)
        plain = models.Index(fields=[_plain(term) for term in self.expressions], name=self.name)
        return plain.create_sql(model, schema_editor, using=using, **kwargs)


def _plain(term):
    """ "name" or "-name" for an `F(name)` or an ordered one."""
    if isinstance(term, OrderBy) and isinstance(term.expression, F):
        if term.descending and not term.nulls_last or not term.descending and term.nulls_last:
            raise ValueError("SQLite puts NULLs first ascending and last descending only.")
        return f"-{term.expression.name}" if term.descending else term.expression.name
    if isinstance(term, F):
        return term.name
    raise TypeError("A NullsFirstIndex is made of F() terms.")
