"""Optimistic concurrency for editorial rows, on the view side (If-Match, `version`) and on the
serializer side (the compare-and-swap save)."""

import re

from django.db import transaction
from django.http import QueryDict
from django.utils.cache import parse_etags
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response

from apikit.conditional import etag_for
from apikit.errors import Conflict, PreconditionFailed
from core.text import name_null_character_refusal
from publishing.models import StaleEditError, publishing_refusal

# The fields every editorial row shows, last in each representation.
PUBLISHING_FIELDS = ["status", "published_at", "created_at", "updated_at", "version"]


class VersionedWritesMixin:
    """Optimistic concurrency for editorial rows.

    A PUT/PATCH/DELETE carrying `If-Match` proceeds only if it matches the current ETag
    (else 412); a PUT/PATCH carrying `version` only if that is the stored version (else 409).
    The save itself is then a compare-and-swap on the version (`Publishable.save_if_version`),
    so a write that loses a race is refused with 409 too, and nothing is changed. A PUT/PATCH
    with neither precondition asked for no check: it is applied, last writer wins.
    """

    def check_if_match(self, request, instance):
        header = request.headers.get("If-Match")
        if not header:
            return
        tags = parse_etags(header)
        if tags == ["*"]:
            return
        current = etag_for(self.get_serializer(instance).data)
        # If-Match uses the strong comparison: weak validators never match.
        if current not in [tag for tag in tags if not tag.startswith("W/")]:
            raise PreconditionFailed(
                "The resource changed since you fetched it: its ETag is now "
                f"{current}. Fetch it again and reapply your change."
            )

    def submitted_version(self, request, instance):
        """The version the save must find (compare-and-swap), or None for an unconditional
        write (no `version`, no `If-Match`: last writer wins)."""
        data = request.data
        if not hasattr(data, "get") or data.get("version") in (None, ""):
            return instance.version if request.headers.get("If-Match") else None
        submitted = data.get("version")
        # JSON carries the version as the integer it was read as: 3.7 is not version 3, and
        # "1" or 1e0 is a client's mistake. A form (multipart, urlencoded) has only text.
        from_form = isinstance(data, QueryDict)
        if from_form and isinstance(submitted, str) and re.fullmatch(r"\d{1,18}", submitted):
            submitted = int(submitted)
        if type(submitted) is not int:
            raise exceptions.ValidationError(
                {"version": ["A whole number is required: the version you read, e.g. 3."]}
            )
        if submitted != instance.version:
            raise Conflict(StaleEditError(submitted, instance.version).message("api"))
        return submitted

    def update(self, request, *args, **kwargs):
        partial = kwargs.pop("partial", False)
        with transaction.atomic():
            instance = self.get_object()
            self.check_if_match(request, instance)
            expected = self.submitted_version(request, instance)
            serializer = self.get_serializer(instance, data=request.data, partial=partial)
            serializer.is_valid(raise_exception=True)
            instance = serializer.save(expected_version=expected)
        return Response(self.get_serializer(self.refetch(instance)).data)

    def refetch(self, instance):
        """The saved row again, with the annotations and prefetches the serializer needs.
        Not through `visible_to`: who may add a draft but not view drafts still gets back the
        row they just wrote."""
        return self.decorate(type(instance)._default_manager.filter(pk=instance.pk)).get()

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            instance = serializer.save()
        data = self.get_serializer(self.refetch(instance)).data
        # str(): the value is a DRF Hyperlink, and wsgiref accepts only exact str headers.
        headers = {"Location": str(data["api_url"])} if "api_url" in data else {}
        return Response(data, status=status.HTTP_201_CREATED, headers=headers)

    def destroy(self, request, *args, **kwargs):
        with transaction.atomic():
            instance = self.get_object()
            self.check_if_match(request, instance)
            instance.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class VersionedModelSerializer(serializers.ModelSerializer):
    """Saves through the compare-and-swap on `version`; `version` is read-only."""

    version = serializers.IntegerField(
        read_only=True,
        help_text="Bumped on every save. Send it back on PUT/PATCH to refuse stale edits (409).",
    )

    def get_fields(self):
        fields = super().get_fields()
        for name, field in fields.items():
            if hasattr(field, "validators"):
                name_null_character_refusal(field, field.label or name)
        return fields

    def save(self, **kwargs):
        self._expected_version = kwargs.pop("expected_version", None)
        return super().save(**kwargs)

    def save_instance(self, instance):
        expected = getattr(self, "_expected_version", None)
        if instance.pk is None or expected is None:
            instance.save()
        else:
            instance.save_if_version(expected)

    def check_publishing(self, instance, relations, changed):
        """The admin's publishing rules, for the API: only users with the publish permission
        publish, unpublish or change a live item (403); what publishing needs is checked when
        the item is published (400, by field; drafts save without it)."""
        if not hasattr(instance, "publication_errors"):
            return
        user = getattr(self.context.get("request"), "user", None)
        refusal = publishing_refusal(user, instance, changed)
        if refusal:
            raise exceptions.PermissionDenied(" ".join(refusal.values()))
        errors = instance.publication_errors(relations, changed)
        if errors:
            names = {field.source: name for name, field in self.fields.items()}
            raise serializers.ValidationError(
                {names.get(name, name): messages for name, messages in errors.items()}
            )

    @staticmethod
    def changed_relations(instance, many_to_many):
        """The relations whose new values differ from the stored ones (a PUT resends them all)."""

        def keys(values):
            return {getattr(value, "pk", value) for value in values or []}

        changed = set()
        for name, values in many_to_many.items():
            manager = getattr(instance, name, None)
            if not hasattr(manager, "all") or keys(values) != keys(manager.all()):
                changed.add(name)
        return changed

    def update(self, instance, validated_data):
        many_to_many = self.pop_many_to_many(validated_data)
        changed = {
            name for name, value in validated_data.items() if getattr(instance, name, None) != value
        } | self.changed_relations(instance, many_to_many)
        for attr, value in validated_data.items():
            setattr(instance, attr, value)
        self.check_publishing(instance, many_to_many, changed)
        self.save_instance(instance)
        self.save_many_to_many(instance, many_to_many)
        return instance

    def create(self, validated_data):
        many_to_many = self.pop_many_to_many(validated_data)
        instance = self.Meta.model(**validated_data)
        self.check_publishing(instance, many_to_many, set(validated_data) | set(many_to_many))
        instance.save()
        self.save_many_to_many(instance, many_to_many)
        return instance

    def pop_many_to_many(self, validated_data):
        """Values for the relations named in `Meta.relations`, set after the row is saved."""
        names = getattr(self.Meta, "relations", ())
        return {name: validated_data.pop(name) for name in names if name in validated_data}

    def save_many_to_many(self, instance, values):
        for name, value in values.items():
            getattr(instance, name).set(value)
