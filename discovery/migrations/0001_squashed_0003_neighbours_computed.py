# 0001_initial to 0003_neighbours_computed, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [('discovery', '0001_initial'), ('discovery', '0002_neighbour_graph_ends'), ('discovery', '0003_neighbours_computed')]

    initial = True

    dependencies = [
        ('citations', '0035_remove_paper_cite_key_base'),
        ('citations', '0041_author_history_slug_aliases_merges'),
    ]

    operations = [
        migrations.CreateModel(
            name='NeighboursComputed',
            fields=[
                ('paper', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='citations.paper')),
                ('computed_at', models.DateTimeField()),
            ],
            options={
                'verbose_name_plural': 'neighbours computed',
            },
        ),
        migrations.CreateModel(
            name='Neighbour',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('relation', models.CharField(choices=[('similar', 'Similar paper'), ('prior', 'Prior work'), ('derivative', 'Derivative work'), ('reference', 'Reference drawn on the graph'), ('citer', 'Citer drawn on the graph')], max_length=10)),
                ('rank', models.PositiveSmallIntegerField()),
                ('score', models.FloatField()),
                ('shared_references', models.PositiveIntegerField(default=0)),
                ('co_citations', models.PositiveIntegerField(default=0)),
                ('neighbourhood_links', models.PositiveIntegerField(default=0)),
                ('computed_at', models.DateTimeField()),
                ('other', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='citations.paper')),
                ('paper', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='citations.paper')),
            ],
            options={
                'ordering': ['paper', 'relation', 'rank'],
                'indexes': [models.Index(fields=['paper', 'relation', 'rank'], name='neighbour_ranked'), models.Index(fields=['other'], name='neighbour_other')],
                'constraints': [models.UniqueConstraint(fields=('paper', 'relation', 'other'), name='neighbour_unique'), models.CheckConstraint(condition=models.Q(('paper', models.F('other')), _negated=True), name='neighbour_not_self')],
            },
        ),
    ]
