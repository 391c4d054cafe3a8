"""`{% editor_dashboard as sections %}`: the dashboard on the admin's first page."""

from django import template

from web.dashboard import editor_dashboard as dashboard_sections

register = template.Library()


@register.simple_tag(takes_context=True)
def editor_dashboard(context):
    return dashboard_sections(context["request"])
