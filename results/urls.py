from django.urls import path

from results import views

app_name = "results"

urlpatterns = [
    path("results/", views.result_list, name="list"),
    path("results/compare/", views.compare, name="compare"),
    path("benchmarks/", views.benchmark_list, name="benchmarks"),
    path("benchmarks/<slug:slug>/", views.benchmark_detail, name="benchmark"),
    path("benchmarks/<slug:slug>/results.csv", views.benchmark_csv, name="benchmark-csv"),
]
