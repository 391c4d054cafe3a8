# The stored base keys and their index served the read-time suffixes, which the stored keys
# (0033) replaced: a new key is checked against the unique index on `cite_key` instead.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [("citations", "0034_paper_cite_key")]

    operations = [
        migrations.RemoveIndex(model_name="paper", name="paper_cite_key_base"),
        migrations.RemoveField(model_name="historicalpaper", name="cite_key_base"),
        migrations.RemoveField(model_name="paper", name="cite_key_base"),
    ]
