"""JSON and JSONL input, with errors that name the line."""

import json

from .records import BadImportFile


def json_documents(text):
    """(where, document) pairs: one for a JSON file, one per non-blank line for JSONL."""
    try:
        return [("record 1", json.loads(text))] if text.strip() else []
    except json.JSONDecodeError as whole_error:
        documents = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                documents.append((f"line {number}", json.loads(line)))
            except json.JSONDecodeError as error:
                # Not JSONL either: report the first file's error if the first line is bad.
                if not documents:
                    raise BadImportFile(
                        f"not valid JSON ({whole_error.msg})", f"line {whole_error.lineno}"
                    ) from None
                raise BadImportFile(f"not valid JSON ({error.msg})", f"line {number}") from None
        return documents
