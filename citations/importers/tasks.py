"""Background work for large imports, on Django's Tasks API (the django-tasks backport; the
database backend, so `manage.py db_worker` runs them on SQLite and PostgreSQL alike)."""

from django_tasks import task


@task()
def dry_run_import_run(run_id):
    """The dry run of a large file: its report and counts end up on the run."""
    from citations.importers.runs import ImportRun

    run = ImportRun.objects.get(pk=run_id)
    run.make_dry_run_on_worker()
    return run.counts


@task()
def apply_import_run(run_id):
    from citations.importers.runs import ImportRun

    run = ImportRun.objects.get(pk=run_id)
    run.run()
    return run.counts
