"""Unique constraints that refuse in sentences. A unique constraint with a condition (a paper's
arXiv id, when it has one) or on an expression (a tag's name in any case) refuses a save with
Django's "Constraint “unique_paper_arxiv_id” is violated.", which names neither the field nor
the row that holds the value. Models with such constraints inherit `NamedConstraintErrors`."""

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.db.models import F


class NamedConstraintErrors(models.Model):
    class Meta:
        abstract = True

    def validate_constraints(self, exclude=None):
        try:
            super().validate_constraints(exclude=exclude)
        except ValidationError as error:
            named = self.named_constraint_errors(error.error_dict)
            if named:
                raise ValidationError(named) from None

    def named_constraint_errors(self, errors):
        """`errors` ({field: [ValidationError]}) with each default constraint message replaced
        by a sentence on the constraint's first field; one on a unique field, which refuses the
        same value in its own words, is dropped."""
        defaults = {
            constraint.get_violation_error_message(): constraint
            for constraint in self._meta.constraints
            if isinstance(constraint, models.UniqueConstraint)
            and constraint.violation_error_message == constraint.default_violation_error_message
        }
        named = {}
        for key, field_errors in errors.items():
            for field_error in field_errors:
                constraint = (
                    defaults.get(field_error.messages[0]) if key == NON_FIELD_ERRORS else None
                )
                if constraint is None:
                    named.setdefault(key, []).append(field_error)
                    continue
                fields = constraint_fields(constraint)
                if not fields:
                    named.setdefault(key, []).append(field_error)
                elif not any(self._meta.get_field(name).unique for name in fields):
                    named.setdefault(fields[0], []).append(self.taken_message(constraint, fields))
        return named

    def taken_message(self, constraint, fields):
        """ "Another paper already has this arXiv id: “Title”.", naming the row holding it."""
        labels = " and ".join(str(self._meta.get_field(name).verbose_name) for name in fields)
        holder = None
        if constraint.fields:
            values = {name: getattr(self, self._meta.get_field(name).attname) for name in fields}
            holder = type(self)._base_manager.filter(**values).exclude(pk=self.pk).first()
        named = f": “{holder}”" if holder is not None else ""
        return f"Another {self._meta.verbose_name} already has this {labels}{named}."


def constraint_fields(constraint):
    """The names of the fields a unique constraint covers, its expressions' included."""
    if constraint.fields:
        return list(constraint.fields)
    names = []
    for expression in constraint.expressions:
        for part in expression.flatten():
            if isinstance(part, F) and part.name not in names:
                names.append(part.name)
    return names
