"""The editors' admin site: Django's, with one rule for every ModelAdmin registered on it (the
project's, django-axes', DRF's, django-tasks'): a null character is refused naming the field
that holds it, on the change form, its inline rows and the changelist's editable rows.

Django's refusal ("Null characters are not allowed.") does not say where; a long form with the
error far below the fold left editors searching (core/text.py names it)."""

from django.contrib import admin

from core.text import name_null_character_refusals


class NamedRefusalsAdminMixin:
    """Names the null-character refusal of every field of the forms this admin builds."""

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        name_null_character_refusals(form.base_fields)
        return form

    def get_formsets_with_inlines(self, request, obj=None):
        for formset, inline in super().get_formsets_with_inlines(request, obj):
            name_null_character_refusals(formset.form.base_fields)
            yield formset, inline

    def get_changelist_form(self, request, **kwargs):
        form = super().get_changelist_form(request, **kwargs)
        name_null_character_refusals(form.base_fields)
        return form


def with_named_refusals(admin_class):
    """`admin_class`, or a subclass of it that names the null-character refusals."""
    if issubclass(admin_class, NamedRefusalsAdminMixin):
        return admin_class
    return type(
        admin_class.__name__,
        (NamedRefusalsAdminMixin, admin_class),
        {"__module__": admin_class.__module__, "__doc__": admin_class.__doc__},
    )


class EditorsAdminSite(admin.AdminSite):
    """The default admin site (publishing.apps.EditorsAdminConfig)."""

    def register(self, model_or_iterable, admin_class=None, **options):
        admin_class = with_named_refusals(admin_class or admin.ModelAdmin)
        super().register(model_or_iterable, admin_class, **options)
