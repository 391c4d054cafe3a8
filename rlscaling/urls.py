from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from apikit import changelog as api_changelog
from citations import urls as citations_urls
from core import health
from core.login import BoundedAdminAuthenticationForm
from pagecache.caching import reads_query
from web import browse, cards, open_data, papers, views
from web.feeds import (
    CitingFeed,
    ContrastingFeed,
    LatestFeed,
    LayerFeed,
    NoteListFeed,
    NotesUpdatedFeed,
    PaperListFeed,
    TagFeed,
)
from web.sitemaps import sitemap_index, sitemap_section

admin.site.site_header = "RL Scaling editors"
admin.site.site_title = "RL Scaling admin"
admin.site.index_title = "Editorial content"
admin.site.index_template = "admin/editor_dashboard.html"  # what needs attention, first
admin.site.login_form = BoundedAdminAuthenticationForm

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("papers/", browse.paper_list, name="paper-list"),
    path("papers/feed.atom", reads_query()(PaperListFeed()), name="paper-list-feed"),
    path("notes/", browse.note_list, name="note-list"),
    path("notes/feed.atom", reads_query()(NoteListFeed()), name="note-list-feed"),
    path("tags/", browse.tag_index, name="tag-index"),
    path("tags/<slug:slug>/", views.tag_detail, name="tag-detail"),
    path("search/", include("search.urls")),
    path("feeds/latest.atom", reads_query()(LatestFeed()), name="feed-latest"),
    path("feeds/notes-updated.atom", reads_query()(NotesUpdatedFeed()), name="feed-notes-updated"),
    path("feeds/contrasting.atom", reads_query()(ContrastingFeed()), name="feed-contrasting"),
    path("tags/<slug:slug>/feed.atom", reads_query()(TagFeed()), name="feed-tag"),
    path("bottlenecks/<slug:slug>/feed.atom", reads_query()(LayerFeed()), name="feed-layer"),
    path("papers/<slug:slug>/citing.atom", reads_query()(CitingFeed()), name="feed-citing"),
    path("about/data/", open_data.about_data, name="about-data"),
    path("data/dump/latest.zip", open_data.latest_dump, name="dump-latest"),
    path("papers/<slug:slug>/card.png", cards.paper_card, name="paper-card"),
    path("notes/<slug:slug>/card.png", cards.note_card, name="note-card"),
    # An index of per-section sitemaps, so a large corpus pages past the 50,000-URL limit.
    path("sitemap.xml", sitemap_index, name="sitemap"),
    path("sitemap-<section>.xml", sitemap_section, name="sitemap-section"),
    path("robots.txt", views.robots_txt, name="robots-txt"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("", include((papers.urlpatterns + citations_urls.urlpatterns, "citations"))),
    path("", include("discovery.urls")),
    path("", include("notes.urls")),
    path("bottlenecks/", include("evidence.layer_urls")),
    path("", include("evidence.urls")),
    path("", include("results.urls")),
    path("api/v1/", include("rlscaling.api_urls")),
    path("about/api/", api_changelog.about_api, name="about-api"),
    path(settings.ADMIN_URL, admin.site.urls),
]

# Database outages raised outside views are 503s too; other errors the plain 500 page. Under
# /api/, these answer with the API's error body.
handler400 = "core.middleware.handler400"
handler403 = "core.middleware.handler403"
handler404 = "core.middleware.handler404"
handler500 = "core.middleware.handler500"
