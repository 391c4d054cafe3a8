from django.urls import path

from evidence import layer_views as views

app_name = "bottlenecks"

urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:slug>/", views.layer_detail, name="layer-detail"),
]
