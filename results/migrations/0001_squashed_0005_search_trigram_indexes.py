# 0001_initial to 0005_search_trigram_indexes, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.
# The raw SQL only PostgreSQL ran, as it stands at the end, comes last.

import core.indexes
import django.db.models.deletion
import simple_history.models
from django.conf import settings
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models


# The PostgreSQL-only trigram indexes results 0005 made, copied from it (Django spells
# `__icontains` as UPPER(column::text) LIKE UPPER('%term%')); SQLite gets none, as before.

TRIGRAM_INDEXES = {
    "result_location_upper_trgm": ("results_result", "location"),
    "result_note_upper_trgm": ("results_result", "note"),
    "series_name_upper_trgm": ("results_series", "name"),
}


def on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


FORWARD = [
    f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ((UPPER({column}::text)) gin_trgm_ops)"
    for name, (table, column) in TRIGRAM_INDEXES.items()
]
BACKWARD = [f"DROP INDEX IF EXISTS {name}" for name in TRIGRAM_INDEXES]


class Migration(migrations.Migration):

    replaces = [('results', '0001_initial'), ('results', '0002_points_without_compute_first'), ('results', '0003_import_runs'), ('results', '0004_page_indexes'), ('results', '0005_search_trigram_indexes')]

    initial = True

    dependencies = [
        ('citations', '0035_remove_paper_cite_key_base'),
        ('citations', '0041_author_history_slug_aliases_merges'),
        ('rlscaling', '0005_scheduled_status_no_sweep'),
        ('rlscaling', '0006_draft_revision_number'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Benchmark',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('name', models.CharField(max_length=200)),
                ('slug', models.SlugField(max_length=200, unique=True)),
                ('task_family', models.CharField(blank=True, choices=[('math', 'Math and logical reasoning'), ('code', 'Code and software engineering'), ('agentic', 'Agents and tool use'), ('multimodal', 'Vision and multimodal'), ('general', 'General chat and instruction following')], max_length=20)),
                ('metric', models.CharField(help_text='What is measured, e.g. "pass@1".', max_length=200)),
                ('unit', models.CharField(blank=True, help_text='e.g. "%" or "points".', max_length=40)),
                ('higher_is_better', models.BooleanField(default=True)),
                ('description', models.TextField(blank=True)),
                ('url', models.URLField(blank=True, max_length=500, verbose_name='link')),
            ],
            options={
                'ordering': ['name', 'id'],
                'abstract': False,
                'indexes': [models.Index(fields=['name', 'id'], name='benchmark_name')],
            },
        ),
        migrations.CreateModel(
            name='HistoricalBenchmark',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('created_at', models.DateTimeField(blank=True, editable=False)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('name', models.CharField(max_length=200)),
                ('slug', models.SlugField(max_length=200)),
                ('task_family', models.CharField(blank=True, choices=[('math', 'Math and logical reasoning'), ('code', 'Code and software engineering'), ('agentic', 'Agents and tool use'), ('multimodal', 'Vision and multimodal'), ('general', 'General chat and instruction following')], max_length=20)),
                ('metric', models.CharField(help_text='What is measured, e.g. "pass@1".', max_length=200)),
                ('unit', models.CharField(blank=True, help_text='e.g. "%" or "points".', max_length=40)),
                ('higher_is_better', models.BooleanField(default=True)),
                ('description', models.TextField(blank=True)),
                ('url', models.URLField(blank=True, max_length=500, verbose_name='link')),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'historical benchmark',
                'verbose_name_plural': 'historical benchmarks',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalSeries',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('related_snapshot', models.JSONField(blank=True, default=dict, editable=False)),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('created_at', models.DateTimeField(blank=True, editable=False)),
                ('updated_at', models.DateTimeField(blank=True, editable=False)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('name', models.CharField(help_text='The run as the paper names it, e.g. "ScaleRL, 8B dense".', max_length=200)),
                ('slug', models.SlugField(max_length=200)),
                ('model_name', models.CharField(blank=True, max_length=200, verbose_name='model')),
                ('model_params_b', models.FloatField(blank=True, help_text='Total parameters in billions, as reported (blank when not stated).', null=True, verbose_name='parameters (billions)')),
                ('base_model', models.CharField(blank=True, max_length=200)),
                ('recipe', models.TextField(blank=True, help_text='The method as the paper describes it.')),
                ('task_family', models.CharField(blank=True, choices=[('math', 'Math and logical reasoning'), ('code', 'Code and software engineering'), ('agentic', 'Agents and tool use'), ('multimodal', 'Vision and multimodal'), ('general', 'General chat and instruction following')], max_length=20)),
                ('model_size', models.CharField(blank=True, choices=[('small', 'Under 10B parameters'), ('medium', '10B to 100B parameters'), ('large', 'Over 100B parameters')], max_length=10)),
                ('reward_type', models.CharField(blank=True, choices=[('verifiable', 'Verifiable (graders, tests, checkers)'), ('learned', 'Learned reward model'), ('human', 'Human feedback')], max_length=20)),
                ('source_location', models.CharField(blank=True, help_text='Where the run is described, e.g. "Section 4.2".', max_length=200)),
                ('synthetic', models.BooleanField(default=False, editable=False, help_text='Generated for benchmarks; never in the demo.')),
                ('checked_at', models.DateTimeField(blank=True, null=True)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('benchmark', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='results.benchmark')),
                ('checked_by', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('entered_by', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('paper', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='citations.paper')),
            ],
            options={
                'verbose_name': 'historical series',
                'verbose_name_plural': 'historical series',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='ResultsImportRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('name', models.CharField(blank=True, help_text="The file's name.", max_length=200)),
                ('text', models.TextField(help_text='The CSV as uploaded.')),
                ('rows', models.PositiveIntegerField(default=0, help_text='Lines after the header.')),
                ('state', models.CharField(choices=[('checking', 'Dry run in progress'), ('previewed', 'Dry run shown'), ('queued', 'Queued'), ('running', 'Running'), ('done', 'Applied'), ('failed', 'Failed')], default='checking', max_length=10)),
                ('has_errors', models.BooleanField(default=False)),
                ('summary', models.CharField(blank=True, max_length=300)),
                ('counts', models.JSONField(blank=True, default=dict)),
                ('written', models.PositiveIntegerField(default=0, help_text='Points written when applied.')),
                ('report', models.TextField(blank=True, help_text="Each row's outcome or its errors.")),
                ('task_id', models.CharField(blank=True, max_length=64)),
                ('applied_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('created_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'results import run',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='Series',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('review', 'Submitted for review'), ('published', 'Published'), ('scheduled', 'Scheduled')], db_index=True, default='draft', max_length=10)),
                ('published_at', models.DateTimeField(blank=True, db_index=True, help_text='When this appears publicly. Set automatically on first publication; a future time schedules it (it stays hidden until then).', null=True)),
                ('unpublish_at', models.DateTimeField(blank=True, db_index=True, help_text='Optional: when this stops appearing publicly (an expiry). Empty: stays up.', null=True, verbose_name='unpublish at')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1, editable=False)),
                ('name', models.CharField(help_text='The run as the paper names it, e.g. "ScaleRL, 8B dense".', max_length=200)),
                ('slug', models.SlugField(max_length=200, unique=True)),
                ('model_name', models.CharField(blank=True, max_length=200, verbose_name='model')),
                ('model_params_b', models.FloatField(blank=True, help_text='Total parameters in billions, as reported (blank when not stated).', null=True, verbose_name='parameters (billions)')),
                ('base_model', models.CharField(blank=True, max_length=200)),
                ('recipe', models.TextField(blank=True, help_text='The method as the paper describes it.')),
                ('task_family', models.CharField(blank=True, choices=[('math', 'Math and logical reasoning'), ('code', 'Code and software engineering'), ('agentic', 'Agents and tool use'), ('multimodal', 'Vision and multimodal'), ('general', 'General chat and instruction following')], max_length=20)),
                ('model_size', models.CharField(blank=True, choices=[('small', 'Under 10B parameters'), ('medium', '10B to 100B parameters'), ('large', 'Over 100B parameters')], max_length=10)),
                ('reward_type', models.CharField(blank=True, choices=[('verifiable', 'Verifiable (graders, tests, checkers)'), ('learned', 'Learned reward model'), ('human', 'Human feedback')], max_length=20)),
                ('source_location', models.CharField(blank=True, help_text='Where the run is described, e.g. "Section 4.2".', max_length=200)),
                ('synthetic', models.BooleanField(default=False, editable=False, help_text='Generated for benchmarks; never in the demo.')),
                ('checked_at', models.DateTimeField(blank=True, null=True)),
                ('benchmark', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='series', to='results.benchmark')),
                ('checked_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('entered_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('paper', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='series', to='citations.paper')),
                ('recipe_tags', models.ManyToManyField(blank=True, help_text='Recipe tags.', related_name='result_series', to='rlscaling.tag')),
            ],
            options={
                'verbose_name_plural': 'series',
                'ordering': ['name', 'id'],
                'abstract': False,
                'indexes': [models.Index(fields=['benchmark', 'name', 'id'], name='series_benchmark_name'), models.Index(fields=['name', 'id'], name='series_name'), models.Index(fields=['updated_at', 'id'], name='series_updated')],
            },
        ),
        migrations.CreateModel(
            name='HistoricalResult',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('location_kind', models.CharField(choices=[('table', 'Table'), ('figure', 'Figure'), ('section', 'Section'), ('text', 'Text (abstract or body)'), ('summary', 'A summary of the paper (not yet located in it)')], max_length=10)),
                ('location', models.CharField(help_text='Where in the paper, e.g. "Table 2" or "Figure 1 (left)".', max_length=200)),
                ('value', models.FloatField(help_text="In the benchmark's unit, as reported.")),
                ('uncertainty', models.FloatField(blank=True, help_text='± as reported (standard error or as the paper says).', null=True)),
                ('compute_reported', models.FloatField(blank=True, help_text='The RL compute as the paper gives it, in its unit.', null=True)),
                ('compute_unit', models.CharField(blank=True, choices=[('gpu_hours', 'gpu hours'), ('gpu_days', 'gpu days'), ('flops', 'flops'), ('pflops_days', 'pflops days')], max_length=20)),
                ('gpu_hours', models.FloatField(blank=True, editable=False, null=True)),
                ('flops', models.FloatField(blank=True, editable=False, null=True)),
                ('compute_sort', models.FloatField(blank=True, editable=False, null=True)),
                ('steps', models.PositiveIntegerField(blank=True, help_text='RL steps, if given.', null=True)),
                ('note', models.CharField(blank=True, max_length=300)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('series', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='results.series')),
            ],
            options={
                'verbose_name': 'historical result',
                'verbose_name_plural': 'historical results',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='Result',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('location_kind', models.CharField(choices=[('table', 'Table'), ('figure', 'Figure'), ('section', 'Section'), ('text', 'Text (abstract or body)'), ('summary', 'A summary of the paper (not yet located in it)')], max_length=10)),
                ('location', models.CharField(help_text='Where in the paper, e.g. "Table 2" or "Figure 1 (left)".', max_length=200)),
                ('value', models.FloatField(help_text="In the benchmark's unit, as reported.")),
                ('uncertainty', models.FloatField(blank=True, help_text='± as reported (standard error or as the paper says).', null=True)),
                ('compute_reported', models.FloatField(blank=True, help_text='The RL compute as the paper gives it, in its unit.', null=True)),
                ('compute_unit', models.CharField(blank=True, choices=[('gpu_hours', 'gpu hours'), ('gpu_days', 'gpu days'), ('flops', 'flops'), ('pflops_days', 'pflops days')], max_length=20)),
                ('gpu_hours', models.FloatField(blank=True, editable=False, null=True)),
                ('flops', models.FloatField(blank=True, editable=False, null=True)),
                ('compute_sort', models.FloatField(blank=True, editable=False, null=True)),
                ('steps', models.PositiveIntegerField(blank=True, help_text='RL steps, if given.', null=True)),
                ('note', models.CharField(blank=True, max_length=300)),
                ('series', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='points', to='results.series')),
            ],
            options={
                'verbose_name': 'result',
                'ordering': ['series_id', models.OrderBy(models.F('compute_sort'), nulls_first=True), 'id'],
                'indexes': [core.indexes.NullsFirstIndex(models.F('series'), models.OrderBy(models.F('compute_sort'), nulls_first=True), models.F('id'), name='result_series_compute'), core.indexes.NullsFirstIndex(models.OrderBy(models.F('compute_sort'), nulls_first=True), models.F('id'), name='result_compute'), models.Index(fields=['value', 'id'], name='result_value'), core.indexes.NullsFirstIndex(models.OrderBy(models.F('steps'), nulls_first=True), models.F('id'), name='result_steps')],
            },
        ),
        migrations.CreateModel(
            name='Fit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('sigmoid', 'ScaleRL sigmoid'), ('power', 'Power law')], max_length=10)),
                ('axis', models.CharField(blank=True, choices=[('gpu_hours', 'GPU-hours'), ('flops', 'FLOPs')], max_length=10)),
                ('params', models.JSONField(blank=True, default=dict)),
                ('intervals', models.JSONField(blank=True, default=dict, help_text='{name: [low, high]}')),
                ('residuals', models.JSONField(blank=True, default=list)),
                ('band', models.JSONField(blank=True, default=list, help_text='[[compute, fitted, low, high], ...] for charts.')),
                ('r_squared', models.FloatField(blank=True, null=True)),
                ('compute_range', models.JSONField(blank=True, default=list, help_text='[min, max] fitted.')),
                ('points_count', models.PositiveIntegerField(default=0)),
                ('reason_refused', models.TextField(blank=True)),
                ('digest', models.CharField(blank=True, max_length=64)),
                ('fitted_at', models.DateTimeField(auto_now=True)),
                ('series', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='fits', to='results.series')),
            ],
            options={
                'ordering': ['series_id', 'kind'],
                'constraints': [models.UniqueConstraint(fields=('series', 'kind'), name='unique_fit_per_kind')],
            },
        ),
        TrigramExtension(),
        migrations.RunPython(on_postgresql(FORWARD), on_postgresql(BACKWARD), elidable=False),
    ]
