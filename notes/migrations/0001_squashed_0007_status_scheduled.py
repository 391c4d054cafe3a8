# 0001_initial to 0007_status_scheduled, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.

import django.db.models.deletion
import simple_history.models
import taggit.managers
from django.conf import settings
from django.db import migrations, models


# From 0005_typed_note_tags: the tags' stored counts of public papers and notes (rows of
# another app, which a database without this app's tables may have).

def recount(apps, schema_editor):
    from tags.counts import recount_tags

    recount_tags(apps=apps)


class Migration(migrations.Migration):

    replaces = [('notes', '0001_initial'), ('notes', '0002_unpublish_at'), ('notes', '0003_history_related_snapshot'), ('notes', '0004_status_submitted_for_review'), ('notes', '0005_typed_note_tags'), ('notes', '0006_research_note_review_by'), ('notes', '0007_status_scheduled')]

    initial = True

    dependencies = [
        ('bottlenecks', '0001_initial'),
        ('citations', '0001_initial'),
        ('citations', '0016_typed_paper_tags'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('rlscaling', '0004_tag'),
        ('taggit', '0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='CommunityPost',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('title', models.CharField(max_length=300)),
                ('slug', models.SlugField(max_length=200, unique=True)),
                ('author', models.CharField(max_length=200)),
                ('source', models.CharField(default='LessWrong', max_length=100)),
                ('url', models.URLField(max_length=500, verbose_name='URL')),
                ('summary', models.TextField()),
                ('year', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
            ],
            options={
                'ordering': ['order', '-published_at'],
                'abstract': False,
            },
        ),
        migrations.CreateModel(
            name='GuideSection',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.SlugField(help_text='Where the section appears.', unique=True)),
                ('number', models.CharField(blank=True, help_text='e.g. "01"; blank for none.', max_length=5)),
                ('eyebrow', models.CharField(blank=True, max_length=200)),
                ('heading', models.CharField(max_length=300)),
                ('intro', models.TextField(blank=True)),
                ('footnote', models.TextField(blank=True, help_text='Closing paragraph, e.g. a caveat.')),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('updated_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'ordering': ['order', 'key'],
            },
        ),
        migrations.CreateModel(
            name='HistoricalCommunityPost',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(blank=True, editable=False)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('title', models.CharField(max_length=300)),
                ('slug', models.SlugField(max_length=200)),
                ('author', models.CharField(max_length=200)),
                ('source', models.CharField(default='LessWrong', max_length=100)),
                ('url', models.URLField(max_length=500, verbose_name='URL')),
                ('summary', models.TextField()),
                ('year', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
            ],
            options={
                'verbose_name': 'historical community post',
                'verbose_name_plural': 'historical community posts',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalGuideSection',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('key', models.SlugField(help_text='Where the section appears.')),
                ('number', models.CharField(blank=True, help_text='e.g. "01"; blank for none.', max_length=5)),
                ('eyebrow', models.CharField(blank=True, max_length=200)),
                ('heading', models.CharField(max_length=300)),
                ('intro', models.TextField(blank=True)),
                ('footnote', models.TextField(blank=True, help_text='Closing paragraph, e.g. a caveat.')),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'historical guide section',
                'verbose_name_plural': 'historical guide sections',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalQuestion',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(blank=True, editable=False)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('kind', models.CharField(choices=[('team', 'Question for AI teams'), ('faq', 'Frequently asked question')], db_index=True, max_length=10)),
                ('question', models.CharField(max_length=300)),
                ('answer', models.TextField()),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
            ],
            options={
                'verbose_name': 'historical question',
                'verbose_name_plural': 'historical questions',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalResearchNote',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(blank=True, editable=False)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('title', models.CharField(max_length=300)),
                ('slug', models.SlugField(max_length=200)),
                ('dek', models.TextField(help_text='Standfirst shown on cards and in feeds.', verbose_name='summary')),
                ('body', models.TextField(blank=True, help_text='Markdown.')),
                ('why_it_matters', models.TextField(blank=True)),
                ('caveat', models.TextField(blank=True, help_text='e.g. "work in progress".')),
                ('is_featured', models.BooleanField(db_index=True, default=False, help_text='Show under "Recent evidence" on the home page.')),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
                ('review_by', models.DateField(blank=True, db_index=True, help_text='Optional: when an editor should check this note again (figures move, papers get revised). From that day it is listed on the dashboard as due for review.', null=True, verbose_name='review by')),
            ],
            options={
                'verbose_name': 'historical research note',
                'verbose_name_plural': 'historical research notes',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='Question',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('kind', models.CharField(choices=[('team', 'Question for AI teams'), ('faq', 'Frequently asked question')], db_index=True, max_length=10)),
                ('question', models.CharField(max_length=300)),
                ('answer', models.TextField()),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
            ],
            options={
                'ordering': ['kind', 'order', 'id'],
                'abstract': False,
                'constraints': [models.UniqueConstraint(fields=('kind', 'question'), name='unique_question_per_kind')],
            },
        ),
        migrations.CreateModel(
            name='ResearchNote',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('title', models.CharField(max_length=300)),
                ('slug', models.SlugField(max_length=200, unique=True)),
                ('dek', models.TextField(help_text='Standfirst shown on cards and in feeds.', verbose_name='summary')),
                ('body', models.TextField(blank=True, help_text='Markdown.')),
                ('why_it_matters', models.TextField(blank=True)),
                ('caveat', models.TextField(blank=True, help_text='e.g. "work in progress".')),
                ('is_featured', models.BooleanField(db_index=True, default=False, help_text='Show under "Recent evidence" on the home page.')),
                ('layers', models.ManyToManyField(blank=True, related_name='notes', to='bottlenecks.layer')),
                ('papers', models.ManyToManyField(blank=True, related_name='notes', to='citations.paper')),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('review_by', models.DateField(blank=True, db_index=True, help_text='Optional: when an editor should check this note again (figures move, papers get revised). From that day it is listed on the dashboard as due for review.', null=True, verbose_name='review by')),
            ],
            options={
                'ordering': ['-published_at', '-id'],
                'abstract': False,
            },
        ),
        migrations.CreateModel(
            name='ReportedFigure',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('value', models.CharField(max_length=30)),
                ('label', models.CharField(max_length=200)),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('note', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='figures', to='notes.researchnote')),
            ],
            options={
                'ordering': ['order', 'id'],
            },
        ),
        migrations.CreateModel(
            name='HistoricalReportedFigure',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('value', models.CharField(max_length=30)),
                ('label', models.CharField(max_length=200)),
                ('order', models.PositiveSmallIntegerField(default=0)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('note', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='notes.researchnote')),
            ],
            options={
                'verbose_name': 'historical reported figure',
                'verbose_name_plural': 'historical reported figures',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='TaggedNote',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('content_object', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tagged_items', to='notes.researchnote')),
                ('tag', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tagged_notes', to='rlscaling.tag')),
            ],
            options={
                'indexes': [models.Index(fields=['tag', 'content_object'], name='tagged_note_by_tag')],
                'constraints': [models.UniqueConstraint(fields=('content_object', 'tag'), name='tagged_note_unique')],
            },
        ),
        migrations.AddField(
            model_name='researchnote',
            name='tags',
            field=taggit.managers.TaggableManager(blank=True, help_text='A comma-separated list of tags.', through='notes.TaggedNote', to='rlscaling.Tag', verbose_name='Tags'),
        ),
        migrations.RunPython(recount, migrations.RunPython.noop),
    ]
