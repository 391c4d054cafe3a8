"""Every template of the project keeps to the Content-Security-Policy (style-src and script-src
'self', no 'unsafe-inline'): no `style` attribute and no inline event handler in any of them,
site and admin alike, so no page a reader or an editor opens has a blocked style or script."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INLINE = re.compile(r"""\s(style|on[a-z]+)\s*=\s*["']""")


def project_templates():
    for path in ROOT.rglob("templates/**/*.html"):
        if ".venv" not in path.parts and "node_modules" not in path.parts:
            yield path


def test_no_template_has_an_inline_style_or_event_handler():
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in project_templates()
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if INLINE.search(line)
    ]
    assert list(project_templates())
    assert not found, found
