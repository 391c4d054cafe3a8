from django.conf import settings
from django.contrib import admin
from django.urls import path

from . import views

admin.site.site_header = "RL Scaling editors"
admin.site.site_title = "RL Scaling admin"
admin.site.index_title = "Editorial content"

urlpatterns = [
    path("", views.home, name="home"),
    path(settings.ADMIN_URL, admin.site.urls),
]
