#!/usr/bin/env bash
# Read replicas and failover of expenses-web on loopback: a PostgreSQL primary and two hot
# standbys of its own (Scripts/postgres-server.sh, no apply delay), then
#   1. the list route with 0, 1 and 2 replicas (wrk, read-only load);
#   2. saves and lists alternating, primary only and with a replica under read-your-writes
#      (every list waits for the replica to replay the server's last save);
#   3. failover: saves in a loop, the primary stops, the first standby is promoted; the time
#      from the stop and from the promotion to the first save that succeeds again.
# Prints Markdown tables; fails on any error response under load (the failover gap excepted).
#
#   replica-bench.sh EXPENSES_WEB_BINARY SECONDS
#
# Benchmarks/Results/postgres-replicas.md has 20-second runs of the release build.
set -euo pipefail
binary=$1
seconds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
servers=$(cd "$here/../../../Scripts" && pwd)/postgres-server.sh
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for folder in standby2 standby1 primary; do "$servers" stop "$work/$folder" >/dev/null 2>&1 || true; done
    rm -rf "$work"
}
trap cleanup EXIT

url_of() { sed -n "s/^export $1=//p"; }
primary=$("$servers" start "$work/primary" | url_of OPENSWIFTDATA_POSTGRES_URL)
standby1=$("$servers" standby "$work/primary" "$work/standby1" 0 | url_of OPENSWIFTDATA_POSTGRES_STANDBY_URL)
standby2=$("$servers" standby "$work/primary" "$work/standby2" 0 | url_of OPENSWIFTDATA_POSTGRES_STANDBY_URL)
hostport() { echo "$1" | sed -E 's#^postgres://[^@]*@([^/]*)/.*#\1#'; }
credentials=$(echo "$primary" | sed -E 's#^postgres://([^@]*)@.*#\1#')
schema="replicas_$RANDOM$RANDOM"

# start PORT ARGS…: expenses-web in the background, ready when /health answers.
start() {
    local port=$1; shift
    "$binary" --port "$port" --schema "$schema" "$@" > "$work/server-$port.log" 2>&1 &
    pids+=($!)
    server=$!
    for _ in $(seq 1 100); do
        if curl -fs "http://127.0.0.1:$port/health" > /dev/null; then return; fi
        sleep 0.2
    done
    echo "expenses-web on port $port did not start:" >&2
    cat "$work/server-$port.log" >&2
    exit 1
}
stop() {
    kill -TERM "$server"
    wait "$server" 2>/dev/null || true
}

# run NAME ARGS…: wrk for SECONDS; fails on error responses or socket errors.
run() {
    local name=$1; shift
    wrk -t2 -c16 -d"${seconds}s" --timeout 10s --latency "$@" > "$work/$name.txt"
    if grep -q "Non-2xx or 3xx responses" "$work/$name.txt" || grep -q "Socket errors" "$work/$name.txt"; then
        echo "errors under load ($name):" >&2
        cat "$work/$name.txt" >&2
        exit 1
    fi
}
rate() { awk '/Requests\/sec/ { printf "%.0f", $2 }' "$work/$1.txt"; }
p99() { awk '$1 == "99%" { print $2 }' "$work/$1.txt"; }
# metric PORT NAME: the sum of a metric's samples on /metrics (0 when absent).
metric() {
    curl -fs "http://127.0.0.1:$1/metrics" | awk -v name="$2" '$1 ~ "^"name"({|$)" { sum += $2 } END { printf "%.6f", sum + 0 }'
}

# 200 expenses to list.
start 18090 --store "$primary"
python3 - <<'PY'
import json, urllib.request
for number in range(200):
    body = json.dumps({"amount": 2.5, "note": f"seed {number}", "category": "Food"}).encode()
    request = urllib.request.Request("http://127.0.0.1:18090/api/expenses", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
PY
stop

echo "### Lists (GET /api/expenses?limit=20), read-only load"
echo
echo "| Replicas | Requests/s | p99 latency | Reads a replica answered |"
echo "| ---: | ---: | ---: | ---: |"
for count in 0 1 2; do
    replicas=()
    [ "$count" -ge 1 ] && replicas+=(--replica "$standby1")
    [ "$count" -ge 2 ] && replicas+=(--replica "$standby2")
    start 18091 --store "$primary" "${replicas[@]}"
    run "list-$count" "http://127.0.0.1:18091/api/expenses?limit=20"
    answered=$(metric 18091 openswiftdata_replica_reads_total)
    printf '| %s | %s | %s | %.0f |\n' "$count" "$(rate "list-$count")" "$(p99 "list-$count")" "$answered"
    stop
done

echo
echo "### Saves and lists alternating (read-your-writes)"
echo
echo "| Configuration | Requests/s | p99 latency | Mean wait for the replica | Lists sent to the primary |"
echo "| --- | ---: | ---: | ---: | ---: |"
start 18092 --store "$primary"
run mixed-0 -s "$here/write-then-list.lua" "http://127.0.0.1:18092"
printf '| primary only | %s | %s | — | — |\n' "$(rate mixed-0)" "$(p99 mixed-0)"
stop
start 18093 --store "$primary" --replica "$standby1"
run mixed-1 -s "$here/write-then-list.lua" "http://127.0.0.1:18093"
waits=$(metric 18093 openswiftdata_replica_wait_seconds_count)
waited=$(metric 18093 openswiftdata_replica_wait_seconds_sum)
fallbacks=$(metric 18093 openswiftdata_primary_reads_total)
mean=$(python3 -c "print(f'{1000 * $waited / $waits:.2f} ms over {int($waits)} waits' if $waits else 'none')")
printf '| 1 replica, read-your-writes | %s | %s | %s | %.0f |\n' "$(rate mixed-1)" "$(p99 mixed-1)" "$mean" "$fallbacks"
stop

echo
echo "### Failover"
echo
listed="postgres://$credentials@$(hostport "$primary"),$(hostport "$standby1")/postgres?target_session_attrs=read-write"
start 18094 --store "$listed"
python3 - "$servers" "$work" <<'PY'
import json, subprocess, sys, threading, time, urllib.error, urllib.request
servers, work = sys.argv[1], sys.argv[2]
events, stop = [], threading.Event()
def save(number):
    body = json.dumps({"amount": 1, "note": f"failover {number}", "category": "Food"}).encode()
    request = urllib.request.Request("http://127.0.0.1:18094/api/expenses", data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, OSError):
        return 0
def loop():
    number = 0
    while not stop.is_set():
        number += 1
        events.append((time.monotonic(), save(number)))
worker = threading.Thread(target=loop)
worker.start()
time.sleep(1)
halted_at = time.monotonic()
subprocess.run([servers, "halt", f"{work}/primary"], check=True, stderr=subprocess.DEVNULL)
halted = time.monotonic()
subprocess.run([servers, "promote", f"{work}/standby1"], check=True, stderr=subprocess.DEVNULL)
promoted = time.monotonic()
deadline = time.monotonic() + 60
while time.monotonic() < deadline and not any(status == 201 and at > promoted for at, status in events):
    time.sleep(0.01)
stop.set()
worker.join()
events = [(at, status == 201, status) for at, status in events]
first = next((at for at, ok, _ in events if ok and at > promoted), None)
refused = sorted({status for _, ok, status in events if not ok})
failed = f"{sum(1 for _, ok, _ in events if not ok)} ({', '.join(str(status) if status else 'no answer' for status in refused) or 'none'})"
print("| Stop (pg_ctl stop -m fast) | Promote (pg_ctl promote -w) | First save after the promotion | From the stop | Saves refused meanwhile |")
print("| ---: | ---: | ---: | ---: | ---: |")
if first is None:
    sys.exit("no save succeeded within 60 s of the promotion")
print(f"| {1000 * (halted - halted_at):.0f} ms | {1000 * (promoted - halted):.0f} ms | {1000 * (first - promoted):.0f} ms | {1000 * (first - halted_at):.0f} ms | {failed} |")
PY
stop
