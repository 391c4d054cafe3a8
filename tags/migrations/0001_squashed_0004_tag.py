# 0001_tag_names_unique_case_insensitively to 0004_tag, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.core.management.color import no_style
from django.db import migrations, models


# From 0001_tag_names_unique_case_insensitively.

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


# From 0004_tag.

def copy_taggit_tags(apps, schema_editor):
    """The tags so far (taggit's own table) become rlscaling tags with the same ids, so the
    typed through models of citations and notes can copy taggit's rows as they are."""
    Tag = apps.get_model("rlscaling", "Tag")
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO rlscaling_tag (id, name, slug, display_name, description, "
            "public_paper_count, public_note_count) "
            "SELECT id, name, slug, '', '', 0, 0 FROM taggit_tag"
        )
        for sql in connection.ops.sequence_reset_sql(no_style(), [Tag]):
            cursor.execute(sql)


class Migration(migrations.Migration):

    replaces = [('rlscaling', '0001_tag_names_unique_case_insensitively'), ('rlscaling', '0002_schedule_sweep'), ('rlscaling', '0003_draft_revision'), ('rlscaling', '0004_tag')]

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('taggit', '0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # taggit's tags, merged and then unique whatever their case (0001): rows of another app,
        # which a database without this app's tables may have.
        migrations.RunPython(merge_case_duplicates, migrations.RunPython.noop),
        migrations.RunSQL(
            f"CREATE UNIQUE INDEX {INDEX} ON taggit_tag (lower(name))",
            f"DROP INDEX {INDEX}",
        ),
        migrations.CreateModel(
            name='ScheduleSweep',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('swept_until', models.DateTimeField()),
            ],
        ),
        migrations.CreateModel(
            name='Tag',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100, unique=True, verbose_name='name')),
                ('slug', models.SlugField(allow_unicode=True, max_length=100, unique=True, verbose_name='slug')),
                ('display_name', models.CharField(blank=True, help_text='How readers see the tag, e.g. "GRPO" or "Technical report". Empty: the name.', max_length=100)),
                ('description', models.TextField(blank=True, help_text="One or two sentences shown on the tag's page (Markdown-free).")),
                ('public_paper_count', models.PositiveIntegerField(default=0, editable=False, verbose_name='published papers')),
                ('public_note_count', models.PositiveIntegerField(default=0, editable=False, verbose_name='published research notes')),
            ],
            options={
                'verbose_name': 'tag',
                'ordering': ['name'],
                'indexes': [models.Index(fields=['public_paper_count'], name='tag_public_papers'), models.Index(fields=['public_note_count'], name='tag_public_notes')],
                'constraints': [models.UniqueConstraint(django.db.models.functions.text.Lower('name'), name='tag_name_lower_unique')],
            },
        ),
        migrations.CreateModel(
            name='DraftRevision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('object_id', models.CharField(max_length=64)),
                ('data', models.JSONField(default=dict)),
                ('base_version', models.PositiveIntegerField(default=1)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('author', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('content_type', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='contenttypes.contenttype')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('content_type', 'object_id'), name='one_draft_revision_per_item')],
            },
        ),
        migrations.RunPython(copy_taggit_tags, migrations.RunPython.noop),
    ]
