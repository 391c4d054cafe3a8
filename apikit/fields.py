"""Serializer fields the apps share."""

from django.urls import NoReverseMatch
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class ApiUrlField(serializers.HyperlinkedIdentityField):
    """The row's own address in this API."""

    def __init__(self, view_name, lookup_field="slug", **kwargs):
        kwargs.setdefault("help_text", "This resource in the API.")
        super().__init__(view_name=view_name, lookup_field=lookup_field, **kwargs)


@extend_schema_field({"type": "string", "nullable": True})
class HtmlUrlField(serializers.Field):
    """The row's public page on the site, or null while that page is not wired up."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, instance):
        try:
            path = instance.get_absolute_url()
        except NoReverseMatch:
            return None
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


# The most rows one request may name in a list (tags, authors, references): a bound on the
# work one request can cause (5,000 tags ran past the worker timeout).
MAX_LIST_ITEMS = 200


class BoundedManyRelatedField(serializers.ManyRelatedField):
    default_error_messages = {
        "max_items": f"Ensure this list has at most {MAX_LIST_ITEMS} items.",
    }

    def to_internal_value(self, data):
        if isinstance(data, (list, tuple)) and len(data) > MAX_LIST_ITEMS:
            self.fail("max_items")
        return super().to_internal_value(data)


class SlugReferenceField(serializers.SlugRelatedField):
    """A reference to another row by its slug; one with a NUL byte matches nothing (and never
    reaches PostgreSQL, which refuses NUL in text). A list of them holds MAX_LIST_ITEMS at most."""

    @classmethod
    def many_init(cls, *args, **kwargs):
        field = super().many_init(*args, **kwargs)
        field.__class__ = BoundedManyRelatedField
        return field

    def to_internal_value(self, data):
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data.replace("\x00", ""))
        return super().to_internal_value(data)


def slug_references(model, help_text):
    """A writable list of references to rows of `model` by slug."""
    return SlugReferenceField(
        many=True,
        required=False,
        slug_field="slug",
        queryset=model.objects.all(),
        help_text=help_text,
    )


class NameListField(serializers.ListField):
    """An ordered list of distinct names (authors, tags)."""

    def __init__(self, max_length, max_items=MAX_LIST_ITEMS, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(
            child=serializers.CharField(max_length=max_length), max_length=max_items, **kwargs
        )

    def to_internal_value(self, data):
        names = super().to_internal_value(data)
        if len({name.casefold() for name in names}) != len(names):
            raise serializers.ValidationError("Each name may appear only once.")
        return names


class TagListField(NameListField):
    def get_attribute(self, instance):
        return sorted(tag.name for tag in instance.tags.all())
