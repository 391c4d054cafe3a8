"""Social cards (og:image): a 1200x630 PNG per paper and note, drawn by Pillow with the font
Pillow ships (no outside service, no font download), cached in the page cache like any page,
and below it per generation."""

import hashlib
import io
import textwrap

import PIL
from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe
from PIL import Image, ImageDraw, ImageFont

from .caching import cached_by_generation, reads_query

WIDTH, HEIGHT = 1200, 630
INK, PAPER, ACCENT, MUTED = "#1b1f24", "#fbfaf7", "#b4432f", "#5b6470"


def card_png(eyebrow, title, lines):
    """The card as PNG bytes: an eyebrow, the title (wrapped, at most four lines) and a few
    lines of detail. Drawing one takes Pillow about 50 ms: it is kept per generation (as a
    hub's figures are), under a digest of what it shows."""
    made_of = repr((eyebrow, title, lines, settings.SITE_NAME, PIL.__version__))
    digest = hashlib.blake2b(made_of.encode(), digest_size=16).hexdigest()
    return cached_by_generation(
        f"social-card:v1:{digest}", lambda: draw_card(eyebrow, title, lines)
    )


def draw_card(eyebrow, title, lines):
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 16, HEIGHT), fill=ACCENT)
    small, large = ImageFont.load_default(size=30), ImageFont.load_default(size=58)
    draw.text((72, 60), eyebrow.upper(), font=small, fill=ACCENT)
    wrapped = textwrap.wrap(" ".join(title.split()), width=34)
    if len(wrapped) > 4:
        wrapped = [*wrapped[:3], wrapped[3][:30].rstrip() + "…"]
    y = 120
    for line in wrapped:
        draw.text((72, y), line, font=large, fill=INK)
        y += 72
    y += 24
    for line in lines[:3]:
        draw.text(
            (72, y), textwrap.shorten(line, width=70, placeholder="…"), font=small, fill=MUTED
        )
        y += 44
    draw.text((72, HEIGHT - 70), settings.SITE_NAME, font=small, fill=INK)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def png_response(data):
    response = HttpResponse(data, content_type="image/png")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@reads_query()
@require_safe
def paper_card(request, slug):
    from citations.models import Paper

    paper = get_object_or_404(Paper.objects.published().with_authors(), slug=slug)
    summary = paper.citation_summary()
    authors = paper.author_names
    byline = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "") or paper.byline
    lines = [byline]
    if paper.publication_date:
        lines[0] = (
            f"{byline} · {paper.publication_date.year}"
            if byline
            else str(paper.publication_date.year)
        )
    if summary.total:
        roles = ", ".join(f"{row['name'].lower()} {row['count']}" for row in summary.roles[:3])
        lines.append(
            f"Cited by {summary.total} paper{'s' if summary.total != 1 else ''}"
            + (f": {roles}" if roles else "")
        )
    return png_response(card_png("Paper hub", paper.title, [line for line in lines if line]))


@reads_query()
@require_safe
def note_card(request, slug):
    from notes.models import ResearchNote

    note = get_object_or_404(ResearchNote.objects.published(), slug=slug)
    return png_response(card_png("Research note", note.title, [note.dek]))
