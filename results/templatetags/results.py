"""Results where readers look: `{% load results %}{% results_for paper %}` on a paper's hub lists
the runs the paper reports, each with its benchmark, points and fitted asymptote."""

from django import template

from results.models import Series

register = template.Library()


@register.inclusion_tag("results/includes/paper_results.html")
def results_for(paper):
    series_list = list(Series.objects.public().filter(paper=paper).summaries())
    return {"series_list": series_list, "paper": paper}
