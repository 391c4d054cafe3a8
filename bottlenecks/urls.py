from django.urls import path

from . import views

app_name = "bottlenecks"

urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:slug>/", views.layer_detail, name="layer-detail"),
]
