import django.core.validators
from django.db import migrations, models
from django.utils.text import slugify

SLUG_LENGTH = 220


def fill_slugs(apps, schema_editor):
    """Every author's slug from its name: ASCII, a suffix (-2, -3, ...) when taken, in the
    order the authors were created (as Author.save() gives them)."""
    Author = apps.get_model("citations", "Author")
    given = set()
    changed = []
    for author in Author.objects.order_by("pk").only("pk", "name").iterator(chunk_size=2000):
        base = slugify(author.name)[: SLUG_LENGTH - 8].strip("-") or "author"
        slug, n = base, 1
        while slug in given:
            n += 1
            slug = f"{base}-{n}"
        given.add(slug)
        author.slug = slug
        changed.append(author)
        if len(changed) >= 2000:
            Author.objects.bulk_update(changed, ["slug"])
            changed = []
    Author.objects.bulk_update(changed, ["slug"])


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0037_citation_source_none_and_pith"),
    ]

    operations = [
        migrations.AddField(
            model_name="author",
            name="slug",
            field=models.SlugField(max_length=SLUG_LENGTH, default="", db_index=False),
            preserve_default=False,
        ),
        # Not elidable: the squash of 0017-0042 also runs on databases with authors, and the
        # slug becomes unique next.
        migrations.RunPython(fill_slugs, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="author",
            name="slug",
            field=models.SlugField(max_length=SLUG_LENGTH, unique=True, blank=True),
        ),
        migrations.AddField(
            model_name="author",
            name="orcid",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="e.g. 0000-0002-1825-0097, without https://orcid.org/.",
                max_length=19,
                validators=[
                    django.core.validators.RegexValidator(
                        "\\A\\d{4}-\\d{4}-\\d{4}-\\d{3}[\\dX]\\Z",
                        "An ORCID iD looks like 0000-0002-1825-0097.",
                    )
                ],
                verbose_name="ORCID iD",
            ),
        ),
    ]
