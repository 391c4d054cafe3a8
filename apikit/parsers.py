"""Request bodies the API accepts: JSON bounded in size and nesting, so a hostile body is a
400, never a RecursionError (a 500) or a worker busy past its timeout."""

import json

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, JSONParser

# No representation in this API nests deeper than 3; a little room for what clients wrap.
MAX_JSON_DEPTH = 20


def json_depth(value):
    """The nesting depth of a parsed JSON value, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        request = (parser_context or {}).get("request")
        length = request.headers.get("content-length") if request is not None else None
        if length and length.isdigit() and limit is not None and int(length) > limit:
            raise ParseError(f"The request body is larger than {limit} bytes.")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read(limit + 1 if limit is not None else -1) if stream else b""
        if limit is not None and len(raw) > limit:
            raise ParseError(f"The request body is larger than {limit} bytes.")
        try:
            data = json.loads(raw.decode(encoding), parse_constant=reject_constant)
        except RecursionError:
            raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.") from None
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
        if json_depth(data) > MAX_JSON_DEPTH:
            raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
        return data


def reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


class PlainTextParser(BaseParser):
    """A text body (`text/csv` by default) as a str, bounded in size like a JSON body (a
    larger file goes as a multipart upload)."""

    media_type = "text/csv"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1 if limit is not None else -1) if stream else b""
        if limit is not None and len(raw) > limit:
            raise ParseError(
                f"The request body is larger than {limit} bytes; upload the file as "
                "multipart/form-data instead."
            )
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ParseError(f"The body is not UTF-8 text (near byte {error.start}).") from None
