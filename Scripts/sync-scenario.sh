#!/usr/bin/env bash
# The sync scenario of the Sync article, end to end with the built programs: devices are
# `expenses` stores (SQLite files), the server is `expenses-web` with a sync token.
#
#   Scripts/sync-scenario.sh EXPENSES EXPENSES_WEB WORK_FOLDER [POSTGRES_URL] [ROWS]
#
# First syncs (a new device pulls before seeding), offline adds on two devices, a category made
# offline on both, the server down then up, the same note edited on both (the later edit wins
# whatever the sync order), different attributes of one expense, a delete against an edit, ten
# devices converging, ROWS imported rows (20000 by default) synced with a `kill -9` part way and a
# retry, repeated syncs changing nothing, and, with Node and Chromium (the web example's browser
# check), the server's page showing a device's synced expense live and what was added through the
# page reaching the devices. All of it against one SQLite server, then, given a PostgreSQL URL,
# against two server instances on one database, half the devices syncing through each (the page
# open on one shows live what a device synced through the other).
set -euo pipefail
expenses=$1
web=$2
work=$3
postgres=${4:-}
rows=${5:-20000}
mkdir -p "$work"
export EXPENSES_SYNC_TOKEN=scenario-token
servers=()
stop_servers() {
    for pid in "${servers[@]}"; do kill -INT "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; done
    servers=()
}
trap stop_servers EXIT

# start PORT ARGS…: an expenses-web instance, once it answers /health.
start() {
    local port=$1
    shift
    "$web" --port "$port" "$@" >> "$work/server-$port.log" 2>&1 &
    servers+=($!)
    for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$port/health" > /dev/null && return 0; sleep 0.2; done
    echo "expenses-web did not start on port $port" >&2
    tail -n 20 "$work/server-$port.log" >&2
    exit 1
}
# shows TEXT: whether standard input holds TEXT. Reads it all: `grep -q` stops at the first match,
# and the writer's broken pipe would fail the pipeline under pipefail.
shows() {
    grep -cF -- "$1" > /dev/null
}
fail() {
    echo "sync scenario: $*" >&2
    exit 1
}
# The servers of the scenario under way ($backend): one SQLite server, or two instances on one
# PostgreSQL database. Devices sync through the first, or (b and the even d devices) the second.
backend=sqlite
start_servers() {
    if [ "$backend" = sqlite ]; then
        start 18190 --store "$work/server.store"
    else
        # The second starts once the first is serving (two at once would seed once anyway).
        start 18191 --store "$postgres" --schema "sync_$$"
        start 18192 --store "$postgres" --schema "sync_$$"
    fi
}
first_server() { if [ "$backend" = sqlite ]; then echo http://127.0.0.1:18190; else echo http://127.0.0.1:18191; fi; }
server_for() {
    case "$backend:$1" in
        postgres:b | postgres:d2 | postgres:d4 | postgres:d6 | postgres:d8 | postgres:d10) echo http://127.0.0.1:18192 ;;
        *) first_server ;;
    esac
}
# device NAME ARGS…: the expenses command on that device's store, syncing with its server.
device() {
    local name=$1
    shift
    EXPENSES_SERVER="$(server_for "$name")" "$expenses" "$@" --store "$work/$backend-$name.store"
}
# The device's expenses without list numbers, sorted: equal on devices that hold the same data.
contents() {
    device "$1" list | tail -n +2 | cut -c6- | sort
}
# The number `list` gives the expense whose note is $2 on device $1.
number_of() {
    device "$1" list | awk -v note="$2" 'index($0, note) { print $1; exit }'
}
synced() {
    local output
    output=$(device "$@" sync)
    echo "$output"
    [[ "$output" == "Synced with $(server_for "$1"): "* ]] || fail "unexpected sync output: $output"
}

# live_check NAME: the first server's page, open in headless Chromium, shows live an expense that
# device NAME adds and syncs (through its own server); skipped, saying so, without Node or Chromium.
browser_check="$(dirname "$0")/../Examples/ExpensesWeb/Scripts/browser-check.mjs"
live_check() {
    if ! command -v node > /dev/null || ! command -v "${CHROMIUM:-chromium}" > /dev/null; then
        echo "skipped the live page check: it needs node and chromium (Examples/ExpensesWeb/Scripts/install-tools.sh)"
        return 1
    fi
    # The command runs in sh: the note, the program and the store come in its environment.
    LIVE_COMMAND='"$LIVE_EXPENSES" add 2.5 --note "$LIVE_NOTE" --store "$LIVE_STORE" > /dev/null && "$LIVE_EXPENSES" sync --store "$LIVE_STORE"' \
        LIVE_EXPENSES="$expenses" LIVE_STORE="$work/$backend-$1.store" EXPENSES_SERVER="$(server_for "$1")" \
        node --experimental-websocket "$browser_check" "$(first_server)" "$work/live-$backend.png" || fail "the page at $(first_server) did not show $1's synced expense live"
}

scenario() {
    backend=$1
    echo "== $backend: $([ "$backend" = sqlite ] && echo "one SQLite server" || echo "two server instances on one PostgreSQL database")"
    start_servers

    # First syncs: each new device pulls the server's seeded data instead of seeding its own.
    [ "$(device a sync)" = "Synced with $(server_for a): 0 sent, 11 received." ] || fail "the first device's first sync"
    [ "$(device b sync)" = "Synced with $(server_for b): 0 sent, 11 received." ] || fail "the second device's first sync"
    device a list | shows "Total: 231.24 (6 expenses)" || fail "the first device lacks the server's data"
    # The token read from a file (kept out of the environment and of `ps`); without one, refused.
    printf '%s\n' "$EXPENSES_SYNC_TOKEN" > "$work/token"
    [ "$(env -u EXPENSES_SYNC_TOKEN EXPENSES_SERVER="$(server_for a)" "$expenses" sync --token-file "$work/token" --store "$work/$backend-a.store")" = "Synced with $(server_for a): 0 sent, 0 received." ] \
        || fail "a sync with the token in a file"
    if env -u EXPENSES_SYNC_TOKEN EXPENSES_SERVER="$(server_for a)" "$expenses" sync --store "$work/$backend-a.store" > /dev/null 2>&1; then
        fail "a sync without a token was accepted"
    fi

    # Offline: the server is down. Both devices add, and both make the category Travel.
    stop_servers
    device a add 5 --note "A offline" --category Food > /dev/null
    device b add 6 --note "B offline" > /dev/null
    printf 'amount,date,note,category\n12,2026-11-01,A trip,Travel\n' > "$work/a.csv"
    printf 'amount,date,note,category\n13,2026-11-02,B trip,Travel\n' > "$work/b.csv"
    device a import "$work/a.csv" | shows "Imported 1 expense." || fail "import on a"
    device b import "$work/b.csv" | shows "Imported 1 expense." || fail "import on b"
    if device a sync > "$work/down.txt" 2>&1; then fail "a sync with the server down succeeded"; fi
    grep -q "Could not sync with $(server_for a)" "$work/down.txt" || fail "the failure does not name the server: $(cat "$work/down.txt")"
    device a list | shows "A offline" || fail "the store stopped working offline"

    # The server is back: everything goes through, and the two Travel categories are one.
    start_servers
    synced a
    synced b
    synced a
    [ "$(contents a)" = "$(contents b)" ] || fail "the devices differ after syncing"
    device a categories | grep -Eq "^Travel +grey +2 expenses" || fail "Travel is not one category with both trips: $(device a categories)"
    [ "$(device b categories | grep -c '^Travel')" = 1 ] || fail "the second device has Travel twice"

    # The same note edited on both: the later edit wins, though it syncs first.
    device a edit "$(number_of a Cinema)" --note "Cinema (a)" > /dev/null
    device b edit "$(number_of b Cinema)" --note "Cinema (b)" > /dev/null
    synced b
    synced a
    synced b
    device a list | shows "Cinema (b)" || fail "the later edit lost on the first device"
    device b list | shows "Cinema (b)" || fail "the later edit lost on the second device"

    # Different attributes of one expense: both kept.
    device a edit "$(number_of a Electricity)" --amount 70 > /dev/null
    device b edit "$(number_of b Electricity)" --note "Power" > /dev/null
    synced a
    synced b
    synced a
    device a list | grep -Eq "70\.00 +Bills +Power" || fail "an edit of a different attribute was lost"
    [ "$(contents a)" = "$(contents b)" ] || fail "the devices differ after editing different attributes"

    # A delete against an edit: the delete wins, even over the later edit.
    device a delete "$(number_of a "Coffee and pastry")" > /dev/null
    device b edit "$(number_of b "Coffee and pastry")" --note "Coffee, edited later" > /dev/null
    synced b
    synced a
    synced b
    if device a list | shows "Coffee"; then fail "the deleted expense came back on the first device"; fi
    if device b list | shows "Coffee"; then fail "the deleted expense came back on the second device"; fi

    # Ten devices, each adding while the others do: all end with the same data.
    for n in $(seq 1 10); do synced "d$n" > /dev/null; done
    for n in $(seq 1 10); do device "d$n" add "$n" --note "device $n" > /dev/null; done
    for n in $(seq 1 10); do synced "d$n" > /dev/null; done
    for n in $(seq 1 10); do synced "d$n" > /dev/null; done
    for n in $(seq 2 10); do [ "$(contents d1)" = "$(contents "d$n")" ] || fail "device d$n differs from d1"; done
    contents d1 | grep -c "device " | grep -qx 10 || fail "the ten devices' expenses are not all there"

    # ROWS imported rows, synced with a kill -9 part way, then again: nothing lost, nothing twice.
    awk -v rows="$rows" 'BEGIN {
        print "amount,date,note,category"
        for (i = 1; i <= rows; i++) printf "%d.25,2026-10-%02d,bulk %d,Bulk\n", i % 90 + 1, i % 28 + 1, i
    }' > "$work/bulk.csv"
    device a import "$work/bulk.csv" | shows "Imported $rows expenses." || fail "the bulk import"
    log="$work/server-$(first_server | sed 's/.*://').log"
    before=$(grep -c "/sync" "$log" || true)
    # The program itself in the background (not `device`, whose subshell would take the kill
    # and leave the program running on).
    EXPENSES_SERVER="$(server_for a)" "$expenses" sync --store "$work/$backend-a.store" > "$work/killed.txt" 2>&1 &
    client=$!
    # Killed once the server has taken a page, if it is still running then.
    for _ in $(seq 1 600); do
        [ "$(grep -c "/sync" "$log" || true)" -gt "$((before + 1))" ] && break
        kill -0 "$client" 2> /dev/null || break
        sleep 0.05
    done
    if kill -9 "$client" 2> /dev/null; then
        wait "$client" 2> /dev/null || true
        [ ! -s "$work/killed.txt" ] || fail "the killed sync went on: $(cat "$work/killed.txt")"
        echo "killed the sync part way"
    else
        wait "$client" 2> /dev/null || true
        echo "the sync finished before the kill"
    fi
    synced a
    synced b
    [ "$(contents a)" = "$(contents b)" ] || fail "the devices differ after the bulk sync"
    [ "$(contents b | grep -c " bulk ")" = "$rows" ] || fail "the second device does not have exactly $rows bulk rows"
    for name in a b; do
        [ "$(device $name sync)" = "Synced with $(server_for $name): 0 sent, 0 received." ] || fail "a repeated sync on $name changed something"
    done

    if live_check b; then
        # What the check added through the page reaches both devices.
        synced a > /dev/null
        synced b > /dev/null
        [ "$(contents a)" = "$(contents b)" ] || fail "after the page's additions, the devices differ"
        device a list | shows "Live from a synced device" || fail "the synced expense did not reach the other device"
    fi
    stop_servers
}

scenario sqlite
if [ -n "$postgres" ]; then scenario postgres; fi
echo "sync scenario passed"
