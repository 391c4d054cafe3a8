#!/usr/bin/env bash
# Property-based fuzzing of the REST API with Schemathesis, against the OpenAPI schema the API
# itself serves, on a live gunicorn on 127.0.0.1 with the demo content in a throwaway SQLite
# database. Fails on any server error or any response that breaks the schema.
#
# Bounded: FUZZ_MAX_EXAMPLES generated cases per operation (default 5, over 60 operations), and
# FUZZ_TIMEOUT seconds for each of the two runs (default 300). Runs once as an editor with a
# token (every operation: reads, drafts and writes), then anonymously over the reads with the
# coverage phase's boundary and invalid values too. FUZZ_EDITOR_PHASES / FUZZ_ANON_PHASES
# choose other phases for a deeper run, e.g. FUZZ_EDITOR_PHASES=coverage,fuzzing.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN=$(cd "${BIN:-.venv/bin}" && pwd)
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-5}
TIMEOUT=${FUZZ_TIMEOUT:-300}
SEED=${FUZZ_SEED:-20260101}

# A free port in 8200-8299.
PORT=""
for candidate in $(seq "${FUZZ_PORT:-8200}" 8299); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then PORT=$candidate; break; fi
done
[ -n "$PORT" ] || { echo "no free port in 8200-8299" >&2; exit 1; }

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# FUZZ_DATABASE_URL points the run at another empty, throwaway database (e.g. PostgreSQL).
export DATABASE_URL="${FUZZ_DATABASE_URL:-sqlite:///$WORK/fuzz.sqlite3}"
export DJANGO_ENV=development DEBUG=false LOG_LEVEL=ERROR
export API_THROTTLE_ANON=1000000/hour API_THROTTLE_USER=1000000/hour API_THROTTLE_TOKEN=1000000/minute
unset REDIS_URL

"$BIN/python" manage.py migrate --noinput -v0
"$BIN/python" manage.py load_demo >/dev/null
TOKEN=$("$BIN/python" manage.py shell -v0 -c '
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rlscaling.editors import EDITORS_GROUP
user = get_user_model().objects.create_user("fuzz-editor", password="fuzz-editor-password-long")
user.groups.add(Group.objects.get(name=EDITORS_GROUP))
print(Token.objects.create(user=user).key)
')

# One sync worker: SQLite takes one writer at a time, and concurrent writers would be told
# "database is locked" (a 503), which is SQLite's limit, not the API's.
"$BIN/gunicorn" rlscaling.wsgi:application --bind "127.0.0.1:$PORT" --workers 1 --timeout 30 \
  --log-level warning >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

BASE="http://127.0.0.1:$PORT"
up() {
  "$BIN/python" -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=1)" \
    "$BASE/healthz" 2>/dev/null
}
for _ in $(seq 1 60); do up && break; sleep 0.5; done
up || { echo "the server did not come up on $BASE" >&2; cat "$WORK/server.log" >&2; exit 1; }

fuzz() {
  local label=$1 phases=$2; shift 2
  echo "== schemathesis ($label; $phases): up to $MAX_EXAMPLES examples per operation, seed $SEED"
  # One Schemathesis worker: Hypothesis' lambda introspection is not thread-safe on Python 3.11.
  # From the scratch directory, so Schemathesis's cache stays out of the checkout.
  (cd "$WORK" && timeout --signal=INT "$TIMEOUT" "$BIN/st" --no-color run "$BASE/api/v1/schema/" \
    --checks not_a_server_error,response_schema_conformance \
    --phases "$phases" \
    --max-examples "$MAX_EXAMPLES" \
    --seed "$SEED" \
    --workers 1 \
    --request-timeout 20 \
    --suppress-health-check all \
    --warnings off \
    "$@")
}

status=0
# Every operation (reads, drafts, writes) as an editor; the coverage phase's boundary and
# negative cases on the reads, anonymously.
fuzz "editor token" "${FUZZ_EDITOR_PHASES:-fuzzing}" --header "Authorization: Token $TOKEN" \
  || status=$?
fuzz "anonymous reads" "${FUZZ_ANON_PHASES:-coverage,fuzzing}" --include-method GET || status=$?

if grep -q "Traceback" "$WORK/server.log"; then
  echo "== server errors logged during the run" >&2
  cat "$WORK/server.log" >&2
  status=1
fi
exit $status
