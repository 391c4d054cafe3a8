"""JSON and JSONL input, with errors that name the line."""

import json
import math

from citations.importers.records import BadImportFile

MAX_INTEGER_DIGITS = 20  # no field of any format needs more; int() of 5000 digits is an error


def _constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is out of range")
    return value


def _int(text):
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError(f"a {len(text)}-digit number is out of range")
    return int(text)


def strict_loads(text, where):
    """json.loads refusing NaN, Infinity, numbers out of range and nesting past the
    interpreter's limit, with the error naming `where`."""
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError:
        raise
    except ValueError as error:
        raise BadImportFile(f"not valid JSON ({error})", where) from None
    except RecursionError:
        raise BadImportFile("not valid JSON (nested too deeply)", where) from None


def json_documents(text):
    """(where, document) pairs: one for a JSON file, one per non-blank line for JSONL."""
    try:
        return [("record 1", strict_loads(text, "record 1"))] if text.strip() else []
    except json.JSONDecodeError as whole_error:
        documents = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                documents.append((f"line {number}", strict_loads(line, f"line {number}")))
            except json.JSONDecodeError as error:
                # Not JSONL either: report the first file's error if the first line is bad.
                if not documents:
                    raise BadImportFile(
                        f"not valid JSON ({whole_error.msg})", f"line {whole_error.lineno}"
                    ) from None
                raise BadImportFile(f"not valid JSON ({error.msg})", f"line {number}") from None
        return documents
