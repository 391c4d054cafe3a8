"""Social cards draw every script with a font that has its glyphs: never the .notdef box a font
draws for a character it lacks (Pillow's built-in font drew "José" as "Jos□")."""

import io

import pytest
from django.test import Client
from PIL import Image

from tests.factories import PaperFactory
from web import cards

TITLES = {
    "latin accents": "José García-Pérez, Łukasz Kaiser and Søren Ørsted: naïve scaling",
    "greek": "Σύγκλιση της ενισχυτικής μάθησης: α, β, γ",
    "cyrillic": "Масштабирование обучения с подкреплением",
    "cjk": "强化学习的扩展规律 (日本語のテキスト)",
    "symbols": "Reward ≥ 0.9 × baseline, loss ≤ 1 − ε → ∞ ± 2",
    "uncovered": "Hangul 한국어 and ʘ",
}


def characters_drawn(text, fonts):
    for font, piece in cards.runs(text, fonts):
        for character in piece:
            yield font, character


@pytest.mark.parametrize("script", TITLES)
@pytest.mark.parametrize("weight, size", [(700, 56), (400, 30)])
def test_no_character_is_drawn_as_a_box(script, weight, size):
    fonts = cards.font_chain(weight, size)
    drawn = list(characters_drawn(TITLES[script], fonts))
    assert drawn
    for font, character in drawn:
        if character.isspace():
            continue
        mask = font.getmask(character)
        notdef = font.getmask(cards.NOTDEF_PROBE)
        assert (mask.size, bytes(mask)) != (notdef.size, bytes(notdef)), (script, character)


def test_each_script_keeps_its_letters():
    fonts = cards.font_chain(400, 30)
    text = "".join(piece for _, piece in cards.runs(TITLES["latin accents"], fonts))
    assert text == TITLES["latin accents"]
    for script in ("greek", "cyrillic", "cjk"):
        assert "".join(p for _, p in cards.runs(TITLES[script], fonts)) == TITLES[script]
    symbols = "".join(p for _, p in cards.runs("a ≥ b ≤ c → d", fonts))
    assert symbols == "a >= b <= c -> d"


def test_the_site_fonts_draw_latin_and_the_fallback_draws_cjk():
    fonts = cards.font_chain(400, 30)
    assert cards.font_for("é", fonts).getname()[0] == "Inter"
    assert cards.font_for("α", fonts).getname()[0] == "Inter"
    assert cards.font_for("中", fonts).getname()[0].startswith("Noto Sans SC")


def test_long_titles_wrap_within_the_card():
    fonts = cards.font_chain(700, 56)
    lines = cards.wrap("强化学习" * 40, fonts, cards.TEXT_WIDTH, 4)
    assert len(lines) == 4 and lines[-1].endswith("…")
    assert all(cards.text_width(line, fonts) <= cards.TEXT_WIDTH for line in lines)


@pytest.mark.django_db
@pytest.mark.parametrize("script", TITLES)
def test_a_card_per_script(script):
    paper = PaperFactory(title=TITLES[script], byline=TITLES[script][:20])
    response = Client().get(f"{paper.get_absolute_url()}card.png")
    assert response.status_code == 200
    assert Image.open(io.BytesIO(response.content)).size == (1200, 630)
