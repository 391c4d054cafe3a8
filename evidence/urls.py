from django.urls import path

from evidence import views

app_name = "evidence"

urlpatterns = [
    path("claims/", views.claim_list, name="claims"),
    path("diagnose/", views.diagnose_signals, name="diagnose"),
    path("diagnose/bottlenecks/", views.diagnose_layers, name="diagnose-layers"),
    path("diagnose/tests/", views.diagnose_tests, name="diagnose-tests"),
    path("diagnose/plan/", views.diagnose_plan, name="diagnose-plan"),
    path("diagnose/plan.md", views.diagnose_plan_markdown, name="diagnose-plan-markdown"),
    path("diagnose/plan.json", views.diagnose_plan_json, name="diagnose-plan-json"),
]
