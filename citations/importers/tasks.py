"""Background work for large imports, on Django's Tasks API (the django-tasks backport; the
database backend, so `manage.py db_worker` runs them on SQLite and PostgreSQL alike)."""

from django_tasks import task


@task()
def apply_import_run(run_id):
    from .runs import ImportRun

    run = ImportRun.objects.get(pk=run_id)
    run.run()
    return run.counts
