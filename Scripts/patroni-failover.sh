#!/usr/bin/env bash
# Automatic failover, shown: two PostgreSQL servers managed by Patroni (Debian's `patroni`) with
# etcd (Debian's `etcd-server`) as its store, both installed if missing; `expenses-web` on the
# multi-host URL of both (target_session_attrs=read-write) saving in a loop through its JSON API;
# the primary's machine "dies" (Patroni and PostgreSQL killed with SIGKILL), Patroni promotes the
# standby, and saves go on. Everything on loopback, run as the unprivileged user `postgres` when
# started by root, and stopped at the end.
#
#   Scripts/patroni-failover.sh .build/debug/expenses-web /tmp/failover [SAVES_AFTER]
#
# Replication is synchronous (Patroni's synchronous_mode): a save is acknowledged once the standby
# has it, so none that was acknowledged is lost with the primary.
#
# Prints the time from the kill to the first save the promoted server acknowledged, the saves
# refused meanwhile, and checks on the promoted server that every acknowledged save is there and
# no key was handed out twice (exits non-zero otherwise). SAVES_AFTER (default 20): how many
# saves must succeed after the kill before it stops. Patroni's leader lease here is 10 s
# (ttl), checked every second: the failover takes about that long; production settings
# (ttl 30, loop_wait 10) take longer.
set -euo pipefail
web=${1:?the expenses-web binary}
folder=${2:?a folder for the server files}
saves_after=${3:-20}

as_server_user() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() { # wait_for SECONDS COMMAND…: until the command succeeds
    local seconds=$1; shift
    for _ in $(seq $((seconds * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}

if ! command -v patroni >/dev/null || ! command -v etcd >/dev/null; then
    echo "installing Patroni and etcd…" >&2
    apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y patroni etcd-server postgresql >&2
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

rm -rf "$folder"
mkdir -p "$folder"
folder=$(cd "$folder" && pwd)
[ "$(id -u)" = 0 ] && chown postgres "$folder"
password=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    # runuser does not pass the signal on: the programs themselves, by their command lines.
    pkill -f "patroni $folder/node" 2>/dev/null || true
    pkill -f "etcd --name osd --data-dir $folder/etcd" 2>/dev/null || true
    for node in node1 node2; do
        [ -f "$folder/$node/data/postmaster.pid" ] && kill -9 "$(head -1 "$folder/$node/data/postmaster.pid")" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

etcd_port=$(free_port); peer_port=$(free_port)
as_server_user etcd --name osd --data-dir "$folder/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "osd=http://127.0.0.1:$peer_port" > "$folder/etcd.log" 2>&1 &
pids+=($!)
wait_for 20 curl -sf "http://127.0.0.1:$etcd_port/health"

declare -A pg_port api_port
for node in node1 node2; do
    pg_port[$node]=$(free_port); api_port[$node]=$(free_port)
    mkdir -p "$folder/$node"
    cat > "$folder/$node/patroni.yml" <<YAML
scope: openswiftdata
name: $node
restapi:
  listen: 127.0.0.1:${api_port[$node]}
  connect_address: 127.0.0.1:${api_port[$node]}
etcd3:
  hosts: 127.0.0.1:$etcd_port
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 3
    maximum_lag_on_failover: 1048576
    # A commit is acknowledged once the standby has it: what the primary acknowledged survives
    # its loss (asynchronous replication may lose the last commits — see the PostgreSQL article).
    synchronous_mode: true
    postgresql:
      use_slots: true
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
postgresql:
  listen: 127.0.0.1:${pg_port[$node]}
  connect_address: 127.0.0.1:${pg_port[$node]}
  data_dir: $folder/$node/data
  bin_dir: $bin
  pgpass: $folder/$node/pgpass
  authentication:
    superuser: {username: openswiftdata, password: "$password"}
    replication: {username: replicator, password: "$password"}
  parameters:
    unix_socket_directories: $folder/$node
    max_connections: 100
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
YAML
done
[ "$(id -u)" = 0 ] && chown -R postgres "$folder"
start_node() {
    as_server_user patroni "$folder/$1/patroni.yml" > "$folder/$1/patroni.log" 2>&1 &
    pids+=($!)
}
start_node node1
# /primary answers 200 on the leader, /replica on a standby that streams from it.
wait_for 60 curl -sf "http://127.0.0.1:${api_port[node1]}/primary" || { tail -20 "$folder/node1/patroni.log" >&2; exit 1; }
start_node node2
# /sync: a standby the primary's commits wait for.
wait_for 90 curl -sf "http://127.0.0.1:${api_port[node2]}/sync" || { tail -20 "$folder/node2/patroni.log" >&2; exit 1; }
echo "Patroni: node1 (port ${pg_port[node1]}) leads, node2 (port ${pg_port[node2]}) is its synchronous standby" >&2

web_port=$(free_port)
url="postgres://openswiftdata:$password@127.0.0.1:${pg_port[node1]},127.0.0.1:${pg_port[node2]}/postgres?target_session_attrs=read-write"
"$web" --store "$url" --schema failover --port "$web_port" > "$folder/web.log" 2>&1 &
pids+=($!)
wait_for 60 curl -sf "http://127.0.0.1:$web_port/health" || { tail -20 "$folder/web.log" >&2; exit 1; }

# The writer: a save at a time; each acknowledged note and the time of every answer, in a log.
python3 - "$web_port" "$folder/saves.log" "$folder/kill" "$saves_after" <<'PY' &
import http.client, json, os, sys, time
port, log, kill_file, after = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
succeeded_after = 0
with open(log, "w") as out:
    n = 0
    deadline = None
    while True:
        n += 1
        note = f"save {n}"
        started = time.time()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("POST", "/api/expenses", json.dumps({"amount": 1.0, "note": note}), {"Content-Type": "application/json"})
            status = connection.getresponse().status
            connection.close()
        except OSError:
            status = 0
        out.write(f"{started:.3f} {time.time():.3f} {status} {note}\n")
        out.flush()
        if os.path.exists(kill_file):
            deadline = deadline or time.time() + 120
            if status == 201:
                succeeded_after += 1
            if succeeded_after >= after or time.time() > deadline:
                break
        time.sleep(0.02)
PY
writer=$!
sleep 3
# The primary's machine dies: Patroni first (it would restart PostgreSQL), then PostgreSQL.
pkill -9 -f "patroni $folder/node1/patroni.yml"
postmaster=$(head -1 "$folder/node1/data/postmaster.pid")
# shellcheck disable=SC2046
kill -9 "$postmaster" $(pgrep -P "$postmaster") 2>/dev/null || true
# The kill's time: once the signals are sent (a save started before may still have committed).
date +%s.%N > "$folder/kill.time"
touch "$folder/kill"
echo "killed node1 (Patroni and PostgreSQL)" >&2
wait "$writer"

python3 - "$folder/saves.log" "$(cat "$folder/kill.time")" <<'PY' > "$folder/report.txt"
import sys
log, killed = sys.argv[1], float(sys.argv[2])
rows = [line.split(maxsplit=3) for line in open(log)]
acknowledged = [r[3].strip() for r in rows if r[2] == "201"]
# Saves started after the kill (one under way then may have committed on the old primary).
after = [r for r in rows if float(r[0]) >= killed]
refused = [r for r in after if r[2] != "201"]
first = next((float(r[1]) for r in after if r[2] == "201"), None)
print(f"saves acknowledged: {len(acknowledged)}")
print(f"refused after the kill: {len(refused)} (statuses: {sorted(set(r[2] for r in refused))})")
print(f"from the kill to the first acknowledged save: {first - killed:.2f} s" if first else "no save succeeded after the kill")
open(log + ".acknowledged", "w").write("\n".join(acknowledged) + "\n")
PY
cat "$folder/report.txt"
grep -q "from the kill" "$folder/report.txt"
leader=$(curl -s "http://127.0.0.1:${api_port[node2]}/patroni" | python3 -c 'import json,sys; print(json.load(sys.stdin)["role"])')
echo "node2 is now: $leader"
[ "$leader" = master ] || [ "$leader" = primary ]

# On the promoted server: every acknowledged save is there once, and no key was given twice.
psql_node2() { PGPASSWORD=$password "$bin/psql" -h 127.0.0.1 -p "${pg_port[node2]}" -U openswiftdata -d postgres -Atq -c "$1"; }
table=$(psql_node2 "SELECT table_name FROM information_schema.tables WHERE table_schema = 'failover' AND EXISTS (SELECT 1 FROM information_schema.columns c WHERE c.table_schema = 'failover' AND c.table_name = tables.table_name AND c.column_name = 'note') LIMIT 1")
psql_node2 "SELECT note FROM failover.\"$table\" WHERE note LIKE 'save %'" | sort > "$folder/stored.txt"
sort "$folder/saves.log.acknowledged" | sed '/^$/d' > "$folder/acknowledged.txt"
missing=$(comm -23 "$folder/acknowledged.txt" "$folder/stored.txt" | wc -l)
duplicated=$(uniq -d "$folder/stored.txt" | wc -l)
keys=$(psql_node2 "SELECT count(*) - count(DISTINCT \"Z_PK\") FROM failover.\"$table\"")
echo "acknowledged saves missing on the promoted server: $missing; notes stored twice: $duplicated; keys given twice: $keys"
[ "$missing" = 0 ] && [ "$duplicated" = 0 ] && [ "$keys" = 0 ]
echo "failover passed"
