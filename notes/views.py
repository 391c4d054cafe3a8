"""Research note pages."""

from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe

from notes.models import ResearchNote
from pagecache.caching import reads_query
from publishing.preview import render_item


@reads_query()
@require_safe
def note_detail(request, slug):
    """A note: what the paper(s) found, why it matters, the caveat, the layers it bears on."""
    note = get_object_or_404(ResearchNote.objects.visible_to(request.user).for_display(), slug=slug)
    return render_item(request, "notes/note_detail.html", {"nav": "research", "note": note}, note)
