from django import template

from rlscaling.fragments import render_cards

register = template.Library()


@register.simple_tag
def cards(items, template_name, name, **options):
    """`{% cards page.object_list "citations/includes/paper_item.html" "paper" show_foot=True %}`:
    one card per item, from the shared cache where one is kept (rlscaling/fragments.py)."""
    return render_cards(items, template_name, name, **options)
