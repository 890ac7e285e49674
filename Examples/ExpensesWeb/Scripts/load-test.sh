#!/usr/bin/env bash
# Load test of expenses-web with wrk on loopback: the list and create routes on SQLite and (with
# a URL) PostgreSQL, then two instances on one PostgreSQL database written at once. Prints a
# Markdown table of requests/s and p99 latency; fails on any error response or socket error, and
# unless every expense a create answered 201 for is stored exactly once (and nothing beyond
# what was sent).
#
#   load-test.sh EXPENSES_WEB_BINARY SECONDS [POSTGRES_URL]
#
# With FOOD_ROWS=N set, the category the creates go to (Food) first gets N expenses through the
# API, on each store, so a create's cost can be compared at category sizes.
# CI runs it for 3 seconds a run; Benchmarks/Results/web-load.md has 20-second runs.
set -euo pipefail
binary=$1
seconds=${2:-5}
postgres=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# start PORT [--store …] [--schema …]: a server in the background, ready when /health answers.
start() {
    local port=$1; shift
    "$binary" --port "$port" "$@" > "$work/server-$port.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do
        if curl -fs "http://127.0.0.1:$port/health" > /dev/null; then return; fi
        sleep 0.2
    done
    echo "expenses-web on port $port did not start:" >&2
    cat "$work/server-$port.log" >&2
    exit 1
}

# check OUTPUT: no error responses, no socket errors.
check() {
    if grep -q "Non-2xx or 3xx responses" "$1" || grep -q "Socket errors" "$1"; then
        echo "errors under load:" >&2
        cat "$1" >&2
        exit 1
    fi
}

# row STORE ROUTE OUTPUT: a table row from wrk's report.
row() {
    local rate p99
    rate=$(awk '/Requests\/sec/ { print $2 }' "$3")
    p99=$(awk '$1 == "99%" { print $2 }' "$3")
    printf '| %s | %s | %.0f | %s | 0 |\n' "$1" "$2" "$rate" "$p99"
}

# load PORT OUTPUT [PREFIX]: the list route, or with a prefix the create route.
load() {
    if [ $# -eq 3 ]; then
        WRK_PREFIX=$3 wrk -t2 -c16 -d"${seconds}s" --timeout 10s --latency -s "$here/create.lua" "http://127.0.0.1:$1/api/expenses" > "$2"
    else
        wrk -t2 -c16 -d"${seconds}s" --timeout 10s --latency "http://127.0.0.1:$1/api/expenses?limit=20" > "$2"
    fi
    check "$2"
}

# stored PORT PREFIX: how many expenses of a create run are stored, and how many distinct notes.
stored() {
    python3 - "$1" "$2" <<'PY'
import json, sys, urllib.parse, urllib.request
port, prefix = sys.argv[1], sys.argv[2]
notes, offset = [], 0
while True:
    query = urllib.parse.urlencode({"search": f"load {prefix} ", "offset": offset, "limit": 500})
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/expenses?{query}") as response:
        page = json.load(response)
    notes += [e["note"] for e in page["expenses"]]
    offset += 500
    if offset >= page["count"]:
        break
print(len(notes), len(set(notes)))
PY
}

# fill PORT: FOOD_ROWS expenses in Food before the create runs (if set), eight requests at a time.
fill() {
    [ -n "${FOOD_ROWS:-}" ] || return 0
    python3 - "$1" "$FOOD_ROWS" <<'PY'
import json, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
port, rows = sys.argv[1], int(sys.argv[2])
def post(number):
    body = json.dumps({"amount": 2.5, "note": f"fill {number}", "category": "Food"}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/expenses", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
with ThreadPoolExecutor(8) as pool:
    list(pool.map(post, range(rows)))
PY
    echo "Food holds $FOOD_ROWS more expenses" >&2
}

# verify LABEL PORT PREFIX WRK_OUTPUT…: every created expense stored once, none beyond those sent.
verify() {
    local label=$1 port=$2 prefix=$3; shift 3
    local sent=0 created=0
    for output in "$@"; do
        sent=$((sent + $(awk '$1 == "sent" { print $2 }' "$output")))
        created=$((created + $(awk '$1 == "sent" { print $6 }' "$output")))
    done
    # Requests wrk sent as its run ended may still be running: read until the count settles.
    local rows distinct last=-1
    for _ in $(seq 1 30); do
        read -r rows distinct < <(stored "$port" "$prefix")
        [ "$rows" -eq "$last" ] && break
        last=$rows
        sleep 1
    done
    # A request wrk sent as its run ended may be stored after it stopped listening, so the rows
    # lie between the 201s it counted and the requests it sent.
    if [ "$rows" -ne "$distinct" ] || [ "$rows" -lt "$created" ] || [ "$rows" -gt "$sent" ]; then
        echo "$label: $rows rows ($distinct distinct) for $created created of $sent sent" >&2
        exit 1
    fi
    echo "$label: $created created (of $sent sent), $rows stored, no duplicates" >&2
}

echo "| Store | Route | Requests/s | p99 latency | Errors |"
echo "| --- | --- | ---: | ---: | ---: |"

start 18080 --store "$work/load.store"
fill 18080
load 18080 "$work/sqlite-list.txt"
row SQLite "GET /api/expenses?limit=20" "$work/sqlite-list.txt"
load 18080 "$work/sqlite-create.txt" sqlite
row SQLite "POST /api/expenses" "$work/sqlite-create.txt"
verify SQLite 18080 sqlite "$work/sqlite-create.txt"

if [ -n "$postgres" ]; then
    schema="load_$RANDOM$RANDOM"
    start 18081 --store "$postgres" --schema "$schema"
    fill 18081
    load 18081 "$work/pg-list.txt"
    row PostgreSQL "GET /api/expenses?limit=20" "$work/pg-list.txt"
    load 18081 "$work/pg-create.txt" pg
    row PostgreSQL "POST /api/expenses" "$work/pg-create.txt"
    verify PostgreSQL 18081 pg "$work/pg-create.txt"

    # A second instance on the same database; both written at once.
    start 18082 --store "$postgres" --schema "$schema"
    load 18081 "$work/dual-a.txt" "dual a" &
    first=$!
    load 18082 "$work/dual-b.txt" "dual b"
    wait "$first"
    row "PostgreSQL, instance A of 2" "POST /api/expenses" "$work/dual-a.txt"
    row "PostgreSQL, instance B of 2" "POST /api/expenses" "$work/dual-b.txt"
    verify "Two instances (read through A)" 18081 dual "$work/dual-a.txt" "$work/dual-b.txt"
    verify "Two instances (read through B)" 18082 dual "$work/dual-a.txt" "$work/dual-b.txt"
fi
