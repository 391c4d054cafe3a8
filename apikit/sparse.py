"""Sparse fieldsets: `?fields=slug,title` keeps only those fields of each row, `?omit=abstract`
drops those; both may be given (`fields` first, then `omit`). A name the representation does not
have is a 400 listing the names it has. Prefetches feeding only dropped fields are skipped, so a
narrow answer never costs more queries than the full one, and often fewer.

Only what the serializer would show anyway can be chosen: the fields are removed from the
serializer the view built for this user, never added, so no name opens hidden data.
"""

from rest_framework import exceptions

from apikit.params import SPARSE_PARAMETERS


def split_names(raw):
    return [name.strip() for name in raw.split(",") if name.strip()]


def sparse_choice(query_params, available):
    """The field names to keep, in the serializer's order, or None for all of them; a
    ValidationError for a name not in `available` or a selection that keeps nothing."""
    if not any(name in query_params for name in SPARSE_PARAMETERS):
        return None
    errors, chosen = {}, {}
    for parameter in SPARSE_PARAMETERS:
        if parameter not in query_params:
            continue
        names = split_names(",".join(query_params.getlist(parameter)))
        unknown = [name for name in names if name not in available]
        if unknown:
            errors[parameter] = [
                f"No field named {', '.join(f'“{name}”' for name in unknown)}. "
                f"Fields: {', '.join(available)}."
            ]
        chosen[parameter] = set(names)
    if errors:
        raise exceptions.ValidationError(errors)
    kept = [
        name
        for name in available
        if ("fields" not in chosen or name in chosen["fields"])
        and name not in chosen.get("omit", ())
    ]
    if not kept:
        raise exceptions.ValidationError(
            {"fields": [f"Choose at least one field of: {', '.join(available)}."]}
        )
    return kept


def prune(serializer, kept):
    """Drop every field not in `kept` from the serializer (the child of a list serializer)."""
    target = getattr(serializer, "child", serializer)
    for name in list(target.fields):
        if name not in kept:
            del target.fields[name]
    return serializer


class SparseFieldsetsMixin:
    """`fields=` and `omit=` for a view's JSON representations (see the module docstring).

    `field_prefetches` names, per field, prefetch lookups it needs that its `source` does not
    say (e.g. `authors` reads `author_names`, which walks `authorships`)."""

    sparse_fieldsets = True
    field_prefetches = {}

    def sparse_serializer_class(self):
        return self.get_serializer_class()

    def sparse_fields(self):
        """The fields of a full representation, by name (built once per request)."""
        if not hasattr(self, "_sparse_fields"):
            context = {"request": self.request, "view": self}
            self._sparse_fields = self.sparse_serializer_class()(context=context).fields
        return self._sparse_fields

    def kept_fields(self):
        """The fields this request keeps, or None for all (cached per request)."""
        if not hasattr(self, "_kept_fields"):
            query = self.request.query_params
            self._kept_fields = None
            if any(name in query for name in SPARSE_PARAMETERS):
                self._kept_fields = sparse_choice(query, list(self.sparse_fields()))
        return self._kept_fields

    def get_serializer(self, *args, **kwargs):
        serializer = super().get_serializer(*args, **kwargs)
        # Only a serializer built to show rows: one given `data` is validating a write, and
        # needs every field.
        if "data" not in kwargs and self.kept_fields() is not None:
            prune(serializer, self.kept_fields())
        return serializer

    def filter_queryset(self, queryset):
        queryset = super().filter_queryset(queryset)
        kept = self.kept_fields()
        if kept is None or not getattr(queryset, "_prefetch_related_lookups", ()):
            return queryset
        return skip_prefetches(queryset, self.dropped_roots(kept))

    def dropped_roots(self, kept):
        """The relation names only dropped fields read."""
        fields = self.sparse_fields()

        def roots(name):
            source = fields[name].source or name
            return {source.split(".")[0], *self.field_prefetches.get(name, ())}

        needed = set().union(*(roots(name) for name in kept))
        dropped = set().union(*(roots(name) for name in fields if name not in kept))
        return dropped - needed


def skip_prefetches(queryset, roots):
    """The queryset without the prefetch lookups that start at one of `roots`."""

    def root(lookup):
        path = lookup if isinstance(lookup, str) else lookup.prefetch_through
        return path.split("__")[0]

    lookups = queryset._prefetch_related_lookups
    kept = [lookup for lookup in lookups if root(lookup) not in roots]
    if len(kept) == len(lookups):
        return queryset
    return queryset.prefetch_related(None).prefetch_related(*kept)
