"""Rendering one editorial item's page: published for everyone, a draft preview for editors."""

from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils.cache import patch_cache_control


def admin_change_url(item):
    """The item's change form in the admin, or "" for a model the admin does not edit."""
    opts = item._meta
    try:
        return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[item.pk])
    except NoReverseMatch:
        return ""


def render_item(request, template_name, context, item, status=200):
    """Render the page of one editorial item; an editor's draft preview is never cached and is
    marked for the templates (`is_preview`: the banner, `noindex`)."""
    state = item.publication_state()
    # The admin's preview of a live item's draft revision (publishing/revisions_admin.py).
    revision_back_url = getattr(request, "_draft_revision_back_url", None)
    if revision_back_url:
        state = "revision"
    context = {
        "item": item,
        "is_preview": not item.is_published or bool(revision_back_url),
        "preview_back_url": revision_back_url,
        "preview_state": state,
        "preview_state_display": item.get_publication_state_display(),
        **context,
    }
    if context["is_preview"]:
        # The way back to editing, from every preview an editor opens.
        context["preview_admin_url"] = revision_back_url or admin_change_url(item)
    response = render(request, template_name, context, status=status)
    if context["is_preview"]:
        patch_cache_control(response, private=True, no_store=True)
    return response
