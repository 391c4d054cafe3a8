from django.urls import path

from notes import views

app_name = "notes"

urlpatterns = [
    path("notes/<slug:slug>/", views.note_detail, name="note-detail"),
]
