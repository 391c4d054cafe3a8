"""Read an admin change form the way a browser would submit it, for tests that POST it back."""

from html.parser import HTMLParser

SKIPPED_INPUT_TYPES = {"submit", "button", "reset", "file", "image"}


class _FormParser(HTMLParser):
    def __init__(self, form_id):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.in_form = False
        self.fields = []  # (name, value) pairs in document order
        self._textarea = None
        self._select = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        # A history revert form is named after the historical model: historicalpaper_form.
        if tag == "form" and (attrs.get("id") or "").endswith(self.form_id):
            self.in_form = True
        if not self.in_form:
            return
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type", "text") not in SKIPPED_INPUT_TYPES:
            if attrs.get("type") in {"checkbox", "radio"}:
                if "checked" in attrs:
                    self.fields.append((name, attrs.get("value", "on")))
            else:
                self.fields.append((name, attrs.get("value") or ""))
        elif tag == "textarea" and name:
            self._textarea = [name, ""]
        elif tag == "select" and name:
            self._select = {"name": name, "multiple": "multiple" in attrs, "options": []}
        elif tag == "option" and self._select is not None:
            self._select["options"].append((attrs.get("value", ""), "selected" in attrs))

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "form" and self.in_form:
            self.in_form = False
        elif tag == "textarea" and self._textarea is not None:
            # Browsers drop the one newline Django puts after <textarea>.
            name, value = self._textarea
            self.fields.append((name, value[1:] if value.startswith("\n") else value))
            self._textarea = None
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._select["options"] if selected]
            if not chosen and not self._select["multiple"] and self._select["options"]:
                chosen = [self._select["options"][0][0]]
            self.fields.extend((self._select["name"], value) for value in chosen)
            self._select = None


def admin_form_data(response, model):
    """The POST data of the admin change form in ``response`` (without empty inline templates)."""
    parser = _FormParser(f"{model._meta.model_name}_form")
    parser.feed(response.content.decode())
    assert parser.fields, "no admin form found in the response"
    data = {}
    for name, value in parser.fields:
        if "__prefix__" in name:
            continue
        data.setdefault(name, []).append(value)
    return data
