"""Social cards (og:image): a 1200x630 PNG per paper and note, drawn by Pillow with the fonts the
site ships in static/fonts (no outside service, no font download), cached in the page cache
like any page.

Each character is drawn with the first font that has a glyph for it: Inter's Latin, Latin
Extended, Greek, Cyrillic and Vietnamese subsets, then Noto Sans SC for Chinese and Japanese. A
character none of them has is transliterated (its letters without accents, or a symbol spelt in
ASCII, `≥` as `>=`), and failing that drawn as `?`: a card never shows the empty box
(.notdef) a font draws for a character it lacks."""

import functools
import io
import unicodedata

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe
from PIL import Image, ImageDraw, ImageFont

from citations.identity import redirect_old_slugs
from citations.models import Paper
from notes.models import ResearchNote
from pagecache.caching import reads_query

WIDTH, HEIGHT = 1200, 630
INK, PAPER, ACCENT, MUTED = "#1b1f24", "#fbfaf7", "#b4432f", "#5b6470"
LEFT, TEXT_WIDTH = 72, 1200 - 72 - 64
FONT_DIR = settings.BASE_DIR / "static" / "fonts"
INTER_SUBSETS = (
    "latin",
    "latin-ext",
    "greek",
    "greek-ext",
    "cyrillic",
    "cyrillic-ext",
    "vietnamese",
)
CJK_FONT = "noto-sans-sc-chinese-simplified-400-normal.woff2"
# A code point no font maps: what each font draws for it is its .notdef glyph (the box).
NOTDEF_PROBE = "\uffff"
# Symbols the fonts lack, spelt in ASCII.
SPELT = {
    "≥": ">=", "≤": "<=", "≠": "!=", "≈": "~", "→": "->", "←": "<-", "↔": "<->", "⇒": "=>",
    "∞": "inf", "±": "+/-", "∼": "~", "√": "sqrt", "∑": "sum", "∏": "prod", "∈": "in",
    "ß": "ss", "Æ": "AE", "æ": "ae", "Ø": "O", "ø": "o", "Ł": "L", "ł": "l", "Đ": "D", "đ": "d",
    "Œ": "OE", "œ": "oe", "Þ": "Th", "þ": "th", "ı": "i",
}  # fmt: skip


@functools.cache
def font_chain(weight, size):
    """The fonts to try, in order, for text of this weight and size."""
    names = [f"inter-{subset}-{weight}-normal.woff2" for subset in INTER_SUBSETS]
    names.append(CJK_FONT)
    return tuple(ImageFont.truetype(FONT_DIR / name, size) for name in names)


def mask_of(font, text):
    mask = font.getmask(text)
    return mask.size, bytes(mask)


@functools.cache
def notdef_mask(font):
    return mask_of(font, NOTDEF_PROBE)


@functools.cache
def _has_glyph(font, character):
    return mask_of(font, character) != notdef_mask(font)


def has_glyph(font, character):
    """Whether `font` draws `character` with a glyph of its own, not its .notdef box."""
    if not character.isprintable() or character.isspace():
        return True  # nothing drawn (a space) or removed before drawing
    return _has_glyph(font, character)


def font_for(character, fonts):
    return next((font for font in fonts if has_glyph(font, character)), None)


def transliterated(character):
    if character in SPELT:
        return SPELT[character]
    decomposed = unicodedata.normalize("NFKD", character)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def runs(text, fonts):
    """`text` as (font, piece) runs to draw one after the other: each piece in the first font
    of `fonts` that has all its characters; what none has, transliterated or `?`."""
    pieces = []
    for character in text:
        if not character.isprintable():
            continue
        font = font_for(character, fonts)
        if font is None:
            spelt = transliterated(character)
            fonts_ok = spelt and all(font_for(c, fonts) for c in spelt)
            for c in spelt if fonts_ok else "?":
                pieces.append((font_for(c, fonts), c))
            continue
        pieces.append((font, character))
    merged = []
    for font, piece in pieces:
        if merged and merged[-1][0] is font:
            merged[-1] = (font, merged[-1][1] + piece)
        else:
            merged.append((font, piece))
    return merged


def text_width(text, fonts):
    return sum(font.getlength(piece) for font, piece in runs(text, fonts))


def wrap(text, fonts, width, max_lines):
    """Lines of at most `width` pixels, broken between words (within a word too long for a line,
    as Chinese and Japanese text is); the last line shortened with … when the text goes on."""
    words = " ".join(text.split()).split(" ")
    lines, line = [], ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, fonts) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for character in word:
            if text_width(line + character, fonts) > width and line:
                lines.append(line)
                line = ""
            line += character
    if line:
        lines.append(line)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and text_width(last + "…", fonts) > width:
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last.rstrip() + "…"]
    return lines


def draw_text(draw, position, text, fonts, fill):
    x, y = position
    for font, piece in runs(text, fonts):
        draw.text((x, y), piece, font=font, fill=fill)
        x += font.getlength(piece)


def draw_card(eyebrow, title, lines):
    """The card as PNG bytes: an eyebrow, the title (wrapped, at most four lines) and a few
    lines of detail."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 16, HEIGHT), fill=ACCENT)
    small, large = font_chain(400, 30), font_chain(700, 56)
    draw_text(draw, (LEFT, 60), eyebrow.upper(), small, ACCENT)
    y = 120
    for line in wrap(title, large, TEXT_WIDTH, 4):
        draw_text(draw, (LEFT, y), line, large, INK)
        y += 72
    y += 24
    for line in lines[:3]:
        draw_text(draw, (LEFT, y), (wrap(line, small, TEXT_WIDTH, 1) or [""])[0], small, MUTED)
        y += 44
    draw_text(draw, (LEFT, HEIGHT - 70), settings.SITE_NAME, small, INK)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def png_response(data):
    response = HttpResponse(data, content_type="image/png")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@reads_query()
@require_safe
@redirect_old_slugs  # an old slug's card answers 301, as the paper's page does
def paper_card(request, slug):
    paper = get_object_or_404(Paper.objects.published().with_authors(), slug=slug)
    summary = paper.citation_summary()
    authors = paper.author_names
    byline = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "") or paper.byline
    lines = [byline]
    if year := paper.known_publication_year:
        lines[0] = f"{byline} · {year}" if byline else str(year)
    if summary.total:
        roles = ", ".join(f"{row['name'].lower()} {row['count']}" for row in summary.roles[:3])
        lines.append(
            f"Cited by {summary.total} paper{'s' if summary.total != 1 else ''}"
            + (f": {roles}" if roles else "")
        )
    return png_response(draw_card("Paper hub", paper.title, [line for line in lines if line]))


@reads_query()
@require_safe
def note_card(request, slug):
    note = get_object_or_404(ResearchNote.objects.published(), slug=slug)
    return png_response(draw_card("Research note", note.title, [note.dek]))
