"""`group_by=`: counts and shares of a list's rows by one property, instead of the rows.

`/api/v1/citations/?cited=<slug>&group_by=role` answers the hub's role bar: how many of the
citations matching the filters have each role. Every answer states its basis, the number its
shares are of (a share says what it is a share of): the rows matching the filters,
with the rows lacking a value (an unclassified citation, an undated paper) as the group whose
`value` is null, so nothing is silently left out. Where a row can have several values (a paper's
tags) it counts under each, and the shares can add up to more than 1; the basis says so.
"""

import dataclasses

from django.db.models import Case, CharField, Count, F, FilteredRelation, Value, When
from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from apikit.params import GROUP_BY_PARAMETER
from publishing.models import published_q

# An answer lists at most this many groups, the largest first, and says when it stops: a group
# per citing paper of a hub cited 36,682 times was a 6 MB answer over a second to build.
GROUP_LIMIT = 100


@dataclasses.dataclass(frozen=True)
class Facet:
    """One `group_by` choice: the value (and label) to group by, as ORM expressions over the
    list's model. `relation`, for a many-valued property, names the relation to join, limited
    by `visible(user)` (a Q over the related rows, or None for all of them)."""

    value: object
    label: object = None
    many: bool = False
    relation: str = ""
    visible: object = None
    missing: str = "without a value"
    # Filters the facet needs, any one of them, to stay bounded (a group per paper of every
    # edge, or any grouping of every edge, at 1M ran for seconds): without one the request is
    # a 400 that says so.
    requires: tuple = ()

    def needs(self):
        """The filters this facet needs, in words: "`cited=<slug>` or `citing=<slug>`"."""
        return " or ".join(f"`{name}=<slug>`" for name in self.requires)

    def annotate(self, queryset, user):
        value, label = self.value, self.label
        condition = self.visible(user) if self.visible is not None else None
        if condition is not None:
            alias = f"{self.relation}_shown"
            relation = FilteredRelation(self.relation, condition=condition)
            queryset = queryset.annotate(**{alias: relation})
            value, label = (self.through(path, alias) for path in (value, label))
        return queryset.annotate(group_value=expression(value), group_label=expression(label))

    def through(self, path, alias):
        if isinstance(path, str):
            return path.replace(f"{self.relation}__", f"{alias}__", 1)
        return path


def expression(path):
    if path is None:
        return Value(None, output_field=CharField())
    return F(path) if isinstance(path, str) else path


def choice_label(path, choices):
    """A facet label for a field with choices: the name of each stored value."""
    return Case(
        *(When(**{path: value}, then=Value(str(label))) for value, label in choices),
        output_field=CharField(),
    )


def shown_through(relation, model):
    """A `visible` rule: only the related rows `user` may see (all for those who may view
    drafts of `model`)."""

    def visible(user):
        opts = model._meta
        if user.is_authenticated and user.has_perm(f"{opts.app_label}.view_{opts.model_name}"):
            return None
        return published_q(f"{relation}__")

    return visible


@extend_schema_field(
    {
        # A slug or name, a year, a flag; null (in a branch with a type, as OpenAPI 3.0 needs).
        "anyOf": [
            {"type": "string", "nullable": True},
            {"type": "integer"},
            {"type": "boolean"},
        ]
    }
)
class FacetValueField(serializers.JSONField):
    pass


class FacetRowSerializer(serializers.Serializer):
    # Null is in the field's schema (with a type); allow_null would add a bare `nullable`.
    value = FacetValueField(help_text="The value grouped by; null for rows without one.")
    label = serializers.CharField(allow_null=True, help_text="Its name, where it has one.")
    count = serializers.IntegerField(help_text="Rows with this value.")
    share = serializers.FloatField(help_text="count / total (the basis), rounded to 4 places.")


class FacetsSerializer(serializers.Serializer):
    """The answer of a list asked for `group_by`."""

    group_by = serializers.CharField()
    total = serializers.IntegerField(help_text="Rows matching the filters: the shares' basis.")
    basis = serializers.CharField(help_text="What each share is a share of, in words.")
    truncated = serializers.BooleanField(
        help_text=f"True when only the largest groups are listed (at most {GROUP_LIMIT}); "
        "`total` and every share still count all the rows."
    )
    groups = FacetRowSerializer(many=True)


class GroupByMixin:
    """`group_by=<name>` on a list: `group_by_fields` maps each name to a Facet;
    `group_by_noun` names the rows ("citations")."""

    group_by_fields = {}
    group_by_noun = "rows"

    def list(self, request, *args, **kwargs):
        if GROUP_BY_PARAMETER not in request.query_params:
            return super().list(request, *args, **kwargs)
        name = request.query_params[GROUP_BY_PARAMETER]
        facet = self.group_by_fields.get(name)
        if facet is None:
            choices = ", ".join(self.group_by_fields)
            raise exceptions.ValidationError(
                {GROUP_BY_PARAMETER: [f"Cannot group by “{name}”. Choose one of: {choices}."]}
            )
        if facet.requires and not any(request.query_params.get(n) for n in facet.requires):
            raise exceptions.ValidationError(
                {
                    GROUP_BY_PARAMETER: [
                        f"Grouping by “{name}” needs {facet.needs()}: grouping every row of "
                        "the corpus is unbounded."
                    ]
                }
            )
        return Response(self.facets(name, facet))

    def grouped(self, name, facet):
        """(total, groups): how many rows match the filters, and per value of the facet a
        dict of its "value", "label" and "count", the largest first and at most
        GROUP_LIMIT + 1 of them (one more tells that some were left out). Views override it
        where they keep the figures."""
        matching = self.filter_queryset(self.get_queryset())
        query = matching.query
        if query.distinct or query.annotations:
            # A filter that joins a many-valued relation (or annotates) would count a row
            # once per join: group the distinct rows it selects instead.
            rows = self.queryset.model._default_manager.filter(pk__in=matching.values("pk"))
        else:
            rows = matching.order_by()
        total = rows.count()
        grouped = (
            facet.annotate(rows, self.request.user)
            .values("group_value", "group_label")
            # Not COUNT(DISTINCT): the rows are distinct, and a many-valued facet's relation
            # holds a row once per value (a unique through row), so no row counts twice in a
            # group; the distinct count sorted every joined row (0.3 s for tags at 100k papers).
            .annotate(count=Count("pk"))
            .order_by("-count", "group_value")[: GROUP_LIMIT + 1]
        )
        groups = [
            {"value": group["group_value"], "label": group["group_label"], "count": group["count"]}
            for group in grouped
        ]
        return total, groups

    def facets(self, name, facet):
        total, found = self.grouped(name, facet)
        groups = [
            {
                "value": group["value"],
                "label": None if group["label"] is None else str(group["label"]),
                "count": group["count"],
                "share": round(group["count"] / total, 4) if total else 0.0,
            }
            for group in found
        ]
        groups.sort(key=lambda g: (-g["count"], g["value"] is None, str(g["value"])))
        truncated = len(groups) > GROUP_LIMIT
        groups = groups[:GROUP_LIMIT]
        noun = self.group_by_noun
        basis = (
            f"Each share is of the {total} {noun} matching the filters; "
            f"value null counts the {noun} {facet.missing}."
        )
        if facet.many:
            basis += (
                f" One of the {noun} with several values counts under each of them, so the "
                "shares can add up to more than 1."
            )
        if truncated:
            basis += (
                f" Only the {GROUP_LIMIT} largest groups are listed; narrow the filters to "
                "see the others."
            )
        return {
            "group_by": name,
            "total": total,
            "basis": basis,
            "truncated": truncated,
            "groups": groups,
        }
