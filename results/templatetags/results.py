"""Results where readers look: `{% load results %}{% results_for paper %}` on a paper's hub lists
the runs the paper reports, each with its benchmark, points and fitted asymptote;
`{% compare_choices series_list %}` writes a benchmark's compare form's boxes."""

from django import template
from django.utils.html import format_html_join

from results.models import Series

register = template.Library()


@register.inclusion_tag("results/includes/paper_results.html")
def results_for(paper):
    series_list = list(Series.objects.public().filter(paper=paper).summaries())
    return {"series_list": series_list, "paper": paper}


@register.simple_tag
def compare_choices(series_list):
    """A checkbox per run for the compare form, written in one call rather than a template
    loop: a benchmark can have hundreds of runs."""
    return format_html_join(
        "",
        '<label><input type="checkbox" name="series" value="{}"> {}</label> ',
        ((series.slug, series.name) for series in series_list),
    )
