"""`make fuzz`: property-based fuzzing of the REST API with Schemathesis, against the OpenAPI
schema the API itself serves, on gunicorn with production settings (bench/harness.py, as the
benchmark, the soak and the outage test) on a free 127.0.0.1 port, with the demo content in a
throwaway SQLite database. Fails on any server error or any response that breaks the schema.

Bounded: FUZZ_MAX_EXAMPLES generated cases per operation (default 5, over 60 operations), and
FUZZ_TIMEOUT seconds for each of the two runs (default 300). Runs once as an editor with a
token (every operation: reads, drafts and writes; the fuzzing phase, then the stateful one,
which chains calls through the links Schemathesis infers, e.g. create then read back), then
anonymously over the reads with the coverage phase's boundary and invalid values too.
FUZZ_EDITOR_PHASES / FUZZ_ANON_PHASES choose other phases for a deeper run, e.g.
FUZZ_EDITOR_PHASES=coverage,fuzzing;
FUZZ_DATABASE_URL another empty, throwaway database (e.g. PostgreSQL).
"""

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script, too

from bench.harness import Server, editor_token, scratch_database  # noqa: E402

MAX_EXAMPLES = os.environ.get("FUZZ_MAX_EXAMPLES", "5")
TIMEOUT = int(os.environ.get("FUZZ_TIMEOUT", "300"))
SEED = os.environ.get("FUZZ_SEED", "20260101")
SCHEMATHESIS = Path(sys.executable).parent / "st"


def fuzz(server, label, phases, *options):
    print(
        f"== schemathesis ({label}; {phases}): up to {MAX_EXAMPLES} examples per operation, "
        f"seed {SEED}",
        flush=True,
    )
    command = [
        *(str(SCHEMATHESIS), "--no-color", "run", f"{server.base_url}/api/v1/schema/"),
        *("--checks", "not_a_server_error,response_schema_conformance"),
        *("--phases", phases, "--max-examples", MAX_EXAMPLES, "--seed", SEED),
        # One worker: Hypothesis' lambda introspection is not thread-safe on Python 3.11.
        *("--workers", "1", "--request-timeout", "20"),
        *("--suppress-health-check", "all", "--warnings", "off", *options),
    ]
    # From a scratch directory, so Schemathesis's cache stays out of the checkout.
    with tempfile.TemporaryDirectory(prefix="rlscaling-fuzz-") as scratch:
        process = subprocess.Popen(command, cwd=scratch)
        try:
            return process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGINT)  # lets it print what it found so far
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=30)
            process.kill()
            process.wait()
            print(f"== schemathesis stopped after {TIMEOUT} s", flush=True)
            return 124


def main():
    with contextlib.ExitStack() as stack:
        database_url = os.environ.get("FUZZ_DATABASE_URL") or stack.enter_context(
            scratch_database("fuzz", postgres=False)
        )
        # One worker: SQLite takes one writer at a time, and concurrent writers would be told
        # "database is locked" (a 503), which is SQLite's limit, not the API's.
        server = Server(database_url, workers=1, timeout=30)
        server.manage("migrate", "--noinput", "-v0")
        server.manage("load_demo")
        token = editor_token(server.env, "fuzz-editor", "fuzz-editor-password-long")
        with server:
            editor = os.environ.get("FUZZ_EDITOR_PHASES", "fuzzing,stateful")
            anonymous = os.environ.get("FUZZ_ANON_PHASES", "coverage,fuzzing")
            statuses = [
                # Every operation (reads, drafts, writes) as an editor; the coverage phase's
                # boundary and negative cases on the reads, anonymously.
                fuzz(server, "editor token", editor, "--header", f"Authorization: Token {token}"),
                fuzz(server, "anonymous reads", anonymous, "--include-method", "GET"),
            ]
            log = server.log_path.read_text(errors="replace")
    if "Traceback" in log:
        print(f"== server errors logged during the run\n{log}", file=sys.stderr)
        statuses.append(1)
    return next((status for status in statuses if status), 0)


if __name__ == "__main__":
    sys.exit(main())
