"""Free-text tags that reuse the tag an editor meant: "scaling laws", "Scaling_Laws" and
"scaling-laws" are one tag (taggit alone created `scaling-laws_1` beside `scaling-laws`). Every
door that sets tags (admin, API, importers, demo loader) goes through the models' manager."""

import re

from taggit.managers import TaggableManager, _TaggableManager

from core.slugs import url_slug

SEPARATORS = re.compile(r"[\s_\-]+")
TAG_SLUG_LENGTH = 100


def tag_key(name):
    """What two spellings of one tag share: lower case, any run of spaces, hyphens or
    underscores as one hyphen, as a slug; folded to ASCII ("Café RL" is "cafe-rl"), as the
    `<slug:...>` of the tag's address takes no other letters. It is the tag's slug."""
    key = SEPARATORS.sub("-", name.strip()).lower()
    return url_slug(key, TAG_SLUG_LENGTH, "tag")


class _MatchingTagsManager(_TaggableManager):
    def _to_tag_model_instances(self, tags, tag_kwargs):
        names = {tag: tag_key(tag) for tag in tags if isinstance(tag, str)}
        if names:
            existing = self.through.tag_model()._default_manager.filter(
                slug__in=set(names.values()), **tag_kwargs
            )
            by_key = {}
            for tag in existing.order_by("pk"):
                by_key.setdefault(tag.slug, tag)
            tags = [by_key.get(names[tag], tag) if isinstance(tag, str) else tag for tag in tags]
        return super()._to_tag_model_instances(tags, tag_kwargs)


class MatchingTaggableManager(TaggableManager):
    """TaggableManager whose new names match existing tags by `tag_key` (no migration: the
    manager class is not part of the field's definition)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("manager", _MatchingTagsManager)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, _, args, kwargs = super().deconstruct()
        return name, "taggit.managers.TaggableManager", args, kwargs
