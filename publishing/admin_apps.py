"""django.contrib.admin with the editors' site as its default (publishing/admin_site.py): listed
in INSTALLED_APPS in place of "django.contrib.admin"."""

from django.contrib.admin.apps import AdminConfig


class EditorsAdminConfig(AdminConfig):
    default_site = "publishing.admin_site.EditorsAdminSite"
