"""Tag names unique whatever their case: tags differing only in case are merged into the
oldest, then a unique index on lower(name) makes the database refuse a second one (taggit, with
TAGGIT_CASE_INSENSITIVE, then finds the existing tag: two editors adding `Foo` and `FOO` at
once end up with one tag)."""

from django.db import migrations

INDEX = "taggit_tag_name_lower_uniq"


def merge_case_duplicates(apps, schema_editor):
    Tag = apps.get_model("taggit", "Tag")
    TaggedItem = apps.get_model("taggit", "TaggedItem")
    keep = {}
    for tag in Tag.objects.order_by("pk"):
        original = keep.setdefault(tag.name.lower(), tag)
        if original.pk == tag.pk:
            continue
        for item in TaggedItem.objects.filter(tag=tag):
            duplicate = TaggedItem.objects.filter(
                tag=original, content_type_id=item.content_type_id, object_id=item.object_id
            )
            if duplicate.exists():
                item.delete()
            else:
                item.tag = original
                item.save(update_fields=["tag"])
        tag.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("taggit", "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx"),
    ]

    operations = [
        migrations.RunPython(merge_case_duplicates, migrations.RunPython.noop),
        migrations.RunSQL(
            f"CREATE UNIQUE INDEX {INDEX} ON taggit_tag (lower(name))",
            f"DROP INDEX {INDEX}",
        ),
    ]
