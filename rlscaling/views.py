from django.shortcuts import render

from bottlenecks.models import Dimension


def home(request):
    return render(request, "home.html", {"dimensions": Dimension.objects.published()})
