"""Every URL the README shows a reader works against the demo content: absolute paths in
backticks, the site's http://127.0.0.1:8000/... links, the API paths in prose and the curl
GETs. Paths with placeholders (<slug>, …) are not examples."""

import re
from pathlib import Path

import pytest
from django.test import Client

README = Path(__file__).resolve().parents[2] / "README.md"
API = "/api/v1/"
PLACEHOLDER = re.compile(r"[<>…*{}$]|\.\.\.")
FILES = ("/usr/", "/etc/", "/opt/", "/tmp/", "/work/")
PREFIXES = {"/api/", "/static/"}  # named as prefixes ("JSON under /api/"), not pages


def readme_urls():
    text = README.read_text()
    urls = set()
    for path in re.findall(r"`(/[^`\s]*)`", text):
        urls.add(path)
    for path in re.findall(r"http://127\.0\.0\.1:8000(/[^\s`)\"']*)", text):
        urls.add(path.rstrip(".,;:"))
    for path in re.findall(r"`((?:papers|citations|layers|notes|tags)/[^`\s]+)`", text):
        if not (README.parent / path).exists():  # `citations/api/` is a package, not a URL
            urls.add(API + path)
    for line in text.splitlines():
        if line.lstrip().startswith("curl") and " -X " not in line:
            urls.update(API + path for path in re.findall(r'"\$API/([^"]*)"', line))
    return sorted(
        url
        for url in urls
        if not PLACEHOLDER.search(url) and not url.startswith(FILES) and url not in PREFIXES
    )


def test_the_readme_shows_examples():
    urls = readme_urls()
    assert "/research/" in urls
    assert f"{API}papers/by-arxiv/2510.13786/" in urls


@pytest.mark.django_db
@pytest.mark.parametrize("url", readme_urls())
def test_a_readme_url_works_on_the_demo_content(demo, url):
    response = Client().get(url)
    # The admin and the API's token endpoint answer a redirect to the login / 405 for GET.
    assert response.status_code in (200, 301, 302, 405), (url, response.status_code)
    if response.status_code == 405:
        assert url.startswith(f"{API}auth/"), url


def test_readme_commands_use_the_venv():
    """`python manage.py ...` without the venv fails on a fresh machine (no Django there)."""
    text = README.read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    commands = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    commands += [line.strip() for block in blocks for line in block.splitlines()]
    bare = re.compile(r"^(\w+=\S+ )*(python3? |pytest |ruff |pre-commit |django-admin )")
    offenders = [command for command in commands if bare.match(command)]
    assert not offenders, offenders
