#!/usr/bin/env bash
# The sync scenario of the Sync article, end to end with the built programs: devices are
# `expenses` stores (SQLite files), the server is `expenses-web` with a sync token.
#
#   Scripts/sync-scenario.sh EXPENSES EXPENSES_WEB WORK_FOLDER [POSTGRES_URL] [ROWS]
#
# First syncs (a new device pulls before seeding), offline adds on two devices, a category made
# offline on both, the server down then up, the same note edited on both (the later edit wins
# whatever the sync order), different attributes of one expense, a delete against an edit, ten
# devices converging, two devices kept in sync live (`sync --watch`), ROWS imported rows (20000 by default) synced with a `kill -9` part way and a
# retry, repeated syncs changing nothing, a 50 MB receipt (RECEIPT_MB) sent and fetched apart from
# its expense, each killed part way and resumed (`receipts`), and, with Node and Chromium (the web example's browser
# check), the server's page showing a device's synced expense live and what was added through the
# page reaching the devices. All of it against one SQLite server, then, given a PostgreSQL URL,
# against two server instances on one database, half the devices syncing through each (the page
# open on one shows live what a device synced through the other); on each, the server's store is
# restored from a backup (`restore_check`). Then the accounts part (see `accounts` below) on the
# same servers' kinds.
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
    # Reads the whole list: stopping at the match would break the writer's pipe under pipefail.
    device "$1" list | awk -v note="$2" '!found && index($0, note) { print $1; found = 1 }'
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

# The server's store as it is now, kept aside (the servers stopped), and put back: a restored
# backup. SQLite: the store's files; PostgreSQL: the namespace, with pg_dump and pg_restore.
back_up_store() {
    if [ "$backend" = sqlite ]; then
        rm -f "$work/server-backup.store"*
        for suffix in "" -wal -shm; do [ ! -e "$work/server.store$suffix" ] || cp "$work/server.store$suffix" "$work/server-backup.store$suffix"; done
    else
        pg_dump "$postgres" --schema="sync_$$" --format=custom --file="$work/server-backup.dump"
    fi
}
restore_store() {
    if [ "$backend" = sqlite ]; then
        rm -f "$work/server.store"*
        for suffix in "" -wal -shm; do [ ! -e "$work/server-backup.store$suffix" ] || cp "$work/server-backup.store$suffix" "$work/server.store$suffix"; done
        "$web" new-sync-epoch --store "$work/server.store"
    else
        PGOPTIONS="--client-min-messages=warning" psql "$postgres" --quiet --command="DROP SCHEMA \"sync_$$\" CASCADE"
        pg_restore --dbname="$postgres" "$work/server-backup.dump"
        "$web" new-sync-epoch --store "$postgres" --schema "sync_$$"
    fi
}

# A restored backup: the server's store put back to a copy taken before a change the devices
# synced. After `expenses-web new-sync-epoch`, each device starts again from a fresh copy, and
# the first to sync gives the change back.
restore_check() {
    stop_servers
    back_up_store
    start_servers
    device a add 7.5 --note "Made after the backup" > /dev/null
    synced a > /dev/null
    synced b > /dev/null
    stop_servers
    restore_store
    start_servers
    device b sync > "$work/reset-$backend.txt"
    cat "$work/reset-$backend.txt"
    shows "Started again from a fresh copy" < "$work/reset-$backend.txt" || fail "b did not start again after the restore"
    shows "Sent back 1 object(s) the server had lost." < "$work/reset-$backend.txt" || fail "b did not send back the expense the restore lost"
    device a sync | shows "Started again from a fresh copy" || fail "a did not start again after the restore"
    [ "$(contents a)" = "$(contents b)" ] || fail "the devices differ after the restore"
    device a list | shows "Made after the backup" || fail "the expense made after the backup is lost"
    for name in a b; do
        [ "$(device $name sync)" = "Synced with $(server_for $name): 0 sent, 0 received." ] || fail "a sync after the restore on $name changed something"
    done
}

# requests_of NAME: how many sync requests the server of device NAME has answered so far.
requests_of() {
    grep -c "/sync" "$work/server-$(server_for "$1" | sed 's/.*://').log" || true
}

# killed_part_way NAME REQUESTS ARGS…: the expenses command ARGS on device NAME, killed with -9
# once its server has answered REQUESTS more sync requests, if it is still running then.
killed_part_way() {
    local name=$1 after=$2 before client
    shift 2
    before=$(requests_of "$name")
    # The program itself in the background (not `device`, whose subshell would take the kill
    # and leave the program running on).
    EXPENSES_SERVER="$(server_for "$name")" "$expenses" "$@" --store "$work/$backend-$name.store" > "$work/killed.txt" 2>&1 &
    client=$!
    for _ in $(seq 1 1200); do
        [ "$(requests_of "$name")" -ge "$((before + after))" ] && break
        kill -0 "$client" 2> /dev/null || break
        sleep 0.05
    done
    if kill -9 "$client" 2> /dev/null; then
        wait "$client" 2> /dev/null || true
        [ ! -s "$work/killed.txt" ] || fail "the killed '$*' went on: $(cat "$work/killed.txt")"
        echo "killed '$*' on device $name part way"
    else
        wait "$client" 2> /dev/null || true
        echo "'$*' on device $name finished before the kill"
    fi
}

# peak_of NAME ARGS…: the expenses command ARGS on device NAME, its output kept in
# $work/peak-output.txt; prints the process's peak resident memory in MB (GNU time), or "?".
peak_of() {
    local name=$1
    shift
    if [ -x /usr/bin/time ]; then
        EXPENSES_SERVER="$(server_for "$name")" /usr/bin/time -f "%M" -o "$work/peak.txt" "$expenses" "$@" --store "$work/$backend-$name.store" > "$work/peak-output.txt"
        echo $(($(tail -n 1 "$work/peak.txt") / 1024))
    else
        device "$name" "$@" > "$work/peak-output.txt"
        echo "?"
    fi
}

# The servers' peak resident memory so far, in MB.
server_peaks() {
    local pid
    for pid in "${servers[@]}"; do
        echo "$(($(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2> /dev/null || echo 0) / 1024)) MB"
    done | paste -sd " "
}

# A receipt of RECEIPT_MB megabytes (50 by default) kept with an expense on a, synced apart from
# it in 1 MB chunks (the Sync article's *Large values*): the upload killed part way and run again
# sends only the rest; b receives the expense without the receipt, and its fetch, killed part
# way and run again, receives only the rest; byte for byte the same file. Each side's peak
# memory is printed beside that of a sync that moves nothing.
receipts() {
    local size=${RECEIPT_MB:-50} file="$work/receipt-$backend.bin" before sent idle upload download number servers_before
    head -c "$((size << 20))" /dev/urandom > "$file"
    device a add 4.2 --note "Receipt of $backend" > /dev/null
    device a receipt "$(number_of a "Receipt of $backend")" --attach "$file" | shows "Attached" || fail "the receipt was not attached"
    servers_before=$(server_peaks)
    idle=$(peak_of b sync)
    killed_part_way a 12 sync
    before=$(requests_of a)
    upload=$(peak_of a sync)
    sent=$(($(requests_of a) - before))
    shows ": 2 sent" < "$work/peak-output.txt" || fail "the resumed sync did not send the expense and its receipt: $(cat "$work/peak-output.txt")"
    [ "$sent" -lt "$size" ] || fail "the resumed upload took $sent requests: it started again instead of going on"
    device b sync | shows "1 receipt(s) stay on the server" || fail "b did not leave the receipt on the server"
    number=$(number_of b "Receipt of $backend")
    killed_part_way b 8 receipt "$number" --save "$work/received-$backend.bin"
    before=$(requests_of b)
    download=$(peak_of b receipt "$number" --save "$work/received-$backend.bin")
    sent=$(($(requests_of b) - before))
    [ "$sent" -lt "$size" ] || fail "the resumed fetch took $sent requests: it started again instead of going on"
    cmp -s "$file" "$work/received-$backend.bin" || fail "the received receipt differs from the attached one"
    echo "a $size MB receipt: peak memory of the sync sending it $upload MB, of the fetch receiving it $download MB (a sync moving nothing: $idle MB); servers $(server_peaks) (before: $servers_before)"
}

# watching: devices a and b keep their stores in sync with `sync --watch` (on PostgreSQL through
# the two server instances); what one adds (another process on its file) shows on the other with
# no sync run, and both exit cleanly on SIGTERM.
watching() {
    # The programs themselves in the background (not `device`, whose subshell would take the signal).
    EXPENSES_SERVER="$(server_for a)" "$expenses" sync --watch --store "$work/$backend-a.store" > "$work/watch-$backend-a.log" 2>&1 &
    local watch_a=$!
    EXPENSES_SERVER="$(server_for b)" "$expenses" sync --watch --store "$work/$backend-b.store" > "$work/watch-$backend-b.log" 2>&1 &
    local watch_b=$!
    for name in a b; do
        for _ in $(seq 1 150); do grep -q "Keeping this store in sync" "$work/watch-$backend-$name.log" && break; sleep 0.1; done
    done
    device a add 3 --note "Watched from a" > /dev/null
    for _ in $(seq 1 150); do device b list | shows "Watched from a" && break; sleep 0.1; done
    device b list | shows "Watched from a" || fail "a watching device did not receive the other's save: $(cat "$work/watch-$backend-b.log")"
    device b add 4 --note "Watched from b" > /dev/null
    for _ in $(seq 1 150); do device a list | shows "Watched from b" && break; sleep 0.1; done
    device a list | shows "Watched from b" || fail "a watching device did not receive the other's save: $(cat "$work/watch-$backend-a.log")"
    # The servers restart while both watch; what a saves meanwhile reaches b once they are back.
    stop_servers
    device a add 5 --note "Watched across a restart" > /dev/null
    start_servers
    for _ in $(seq 1 200); do device b list | shows "Watched across a restart" && break; sleep 0.1; done
    device b list | shows "Watched across a restart" || fail "a save made while the servers restarted did not reach the other watching device: $(cat "$work/watch-$backend-b.log")"
    grep -q "^Offline" "$work/watch-$backend-a.log" || fail "sync --watch on a did not say it went offline"
    grep -q "^Back online" "$work/watch-$backend-a.log" || fail "sync --watch on a did not say it was back"
    kill -TERM "$watch_a" "$watch_b"
    wait "$watch_a" || fail "sync --watch on a did not exit cleanly: $(cat "$work/watch-$backend-a.log")"
    wait "$watch_b" || fail "sync --watch on b did not exit cleanly: $(cat "$work/watch-$backend-b.log")"
    for name in a b; do grep -q "^Stopped\." "$work/watch-$backend-$name.log" || fail "sync --watch on $name did not say it stopped"; done
    echo "sync --watch: each device received the other's save without a sync run"
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
    watching

    # ROWS imported rows, synced with a kill -9 part way, then again: nothing lost, nothing twice.
    restore_check

    awk -v rows="$rows" 'BEGIN {
        print "amount,date,note,category"
        for (i = 1; i <= rows; i++) printf "%d.25,2026-10-%02d,bulk %d,Bulk\n", i % 90 + 1, i % 28 + 1, i
    }' > "$work/bulk.csv"
    device a import "$work/bulk.csv" | shows "Imported $rows expenses." || fail "the bulk import"
    # Killed once the server has taken a page, if it is still running then.
    killed_part_way a 2 sync
    synced a
    synced b
    [ "$(contents a)" = "$(contents b)" ] || fail "the devices differ after the bulk sync"
    [ "$(contents b | grep -c " bulk ")" = "$rows" ] || fail "the second device does not have exactly $rows bulk rows"
    for name in a b; do
        [ "$(device $name sync)" = "Synced with $(server_for $name): 0 sent, 0 received." ] || fail "a repeated sync on $name changed something"
    done
    receipts

    if live_check b; then
        # What the check added through the page reaches both devices.
        synced a > /dev/null
        synced b > /dev/null
        [ "$(contents a)" = "$(contents b)" ] || fail "after the page's additions, the devices differ"
        device a list | shows "Live from a synced device" || fail "the synced expense did not reach the other device"
    fi
    stop_servers
}

# Sharing, within `accounts`: alice offers a ledger to bob as a reader (nothing of it reaches
# him until he accepts; then his edit is set aside, the server keeps hers), then as a writer (his
# expense reaches her devices, and the page shows him the ledger as alice's), then stops (his
# devices drop it, and nothing is deleted for her).
sharing() {
    user_device alice1 alice ledger add Trip > /dev/null
    user_device alice1 alice add 120 --note "Trip hotel" --ledger Trip > /dev/null
    user_device alice1 alice sync > /dev/null
    user_device alice1 alice share Trip --with bob --role reader | shows "Shared Trip with bob as reader" || fail "alice could not share her ledger"
    user_device alice1 alice sync > /dev/null
    # An offer: listed, and nothing of it on bob's device, page or totals until he accepts.
    user_device bob1 bob sync > "$work/offered.txt"
    shows "offered to you" < "$work/offered.txt" || fail "bob's sync did not say a ledger is offered: $(cat "$work/offered.txt")"
    if shows "Started again" < "$work/offered.txt"; then fail "an offer made bob's device start again"; fi
    user_device bob1 bob ledgers | grep -cE "^Trip +alice +reader +- +offered" > /dev/null || fail "bob's device does not list alice's offer: $(user_device bob1 bob ledgers)"
    if user_device bob1 bob list | shows "Trip hotel"; then fail "an offer's expense reached bob's device before he accepted"; fi
    curl -fs -H "Authorization: Bearer $bob" "${servers_of_accounts[1]}/" | shows "Offered to you" || fail "bob's page does not show the offer"
    if curl -fs -H "Authorization: Bearer $bob" "${servers_of_accounts[1]}/api/expenses" | shows "Trip hotel"; then fail "an offer's expense is in bob's list before he accepted"; fi
    user_device bob1 bob ledger accept Trip --from alice | shows "Accepted Trip from alice" || fail "bob could not accept the offer"
    user_device bob1 bob sync | shows "Started again" || fail "bob's device did not start again when he accepted a ledger"
    user_device bob1 bob ledgers | grep -cE "^Trip +alice +reader +1 " > /dev/null || fail "bob's device does not list alice's ledger: $(user_device bob1 bob ledgers)"
    user_device bob1 bob list --ledger Trip | shows "Trip hotel" || fail "bob's device lacks the shared expense"
    if cat "$work/accounts-$backend-bob1.store"* | grep -caF "Alice private note" > /dev/null; then fail "sharing a ledger sent alice's other expenses to bob"; fi
    user_device bob1 bob add 5 --note "Reader bob" --ledger Trip > /dev/null
    user_device bob1 bob sync 2>&1 | shows "Set aside, not synced" || fail "a reader's expense in the shared ledger was not refused"
    if curl -fs -H "Authorization: Bearer $alice" "${servers_of_accounts[0]}/api/expenses" | shows "Reader bob"; then fail "a reader's expense reached alice"; fi
    user_device alice2 alice sync > /dev/null
    user_device alice2 alice share Trip --with bob --role writer > /dev/null
    user_device alice2 alice sync > /dev/null
    user_device bob2 bob sync > /dev/null
    user_device bob2 bob add 30 --note "Writer bob taxi" --ledger Trip > /dev/null
    user_device bob2 bob sync > /dev/null
    user_device alice1 alice sync > /dev/null
    user_device alice1 alice list --ledger Trip | shows "Writer bob taxi" || fail "a writer's expense did not reach the ledger's owner"
    curl -fs -H "Authorization: Bearer $bob" "${servers_of_accounts[1]}/" | shows "<td>Trip</td><td>alice</td><td>writer</td>" || fail "the page does not show bob the ledger alice shares"
    user_device alice1 alice unshare Trip --with bob > /dev/null
    user_device alice1 alice sync > /dev/null
    user_device bob2 bob sync | shows "Removed" || fail "bob's device did not drop the ledger when the share ended"
    if user_device bob2 bob ledgers | shows "Trip"; then fail "bob's device still lists the ledger after the share ended"; fi
    user_device bob2 bob list | shows "Bob private note" || fail "bob's device lost his own expense when the share ended"
    user_device bob1 bob sync > /dev/null
    user_device alice2 alice sync > /dev/null
    user_device alice2 alice list --ledger Trip | shows "Writer bob taxi" || fail "the share's end deleted alice's expenses"
    echo "sharing: reader, writer, role change and end checked"
    # Partial sync: a new device of alice's keeps only the expenses from yesterday on (her note
    # of today, not the week-old samples; yesterday, so that a run across midnight holds), then
    # every one again.
    user_device alice3 alice sync --since "$(date -d yesterday +%Y-%m-%d)" | shows "keeps expenses from" || fail "the subscription was not kept"
    user_device alice3 alice list | shows "Alice private note" || fail "a device subscribed from yesterday lacks today's expense"
    if user_device alice3 alice list | shows "Coffee and pastry"; then fail "a device subscribed from yesterday has a week-old expense"; fi
    user_device alice3 alice sync --since all > /dev/null
    user_device alice3 alice list | shows "Coffee and pastry" || fail "widening the subscription did not bring the older expenses"
    echo "subscriptions: narrowed to yesterday on and widened again"
}

# Account mode: the server with a signing secret, two users with two devices each. Each user's
# data reaches only that user's devices (checked in the other user's store files' bytes), a
# device switching users sends nothing until told what to do, the API answers 401 to a bad
# token and 404 to another user's expense, and the cost of a user's sync is measured with and
# without another user's ROWS rows on the server (printed, not asserted: see Benchmarks/).
accounts() {
    backend=$1
    echo "== accounts, $backend: $([ "$backend" = sqlite ] && echo "one SQLite server" || echo "two server instances on one PostgreSQL database")"
    export EXPENSES_AUTH_SECRET="accounts-scenario-secret-of-thirty-two-bytes-or-more"
    local saved_token=$EXPENSES_SYNC_TOKEN
    unset EXPENSES_SYNC_TOKEN
    if [ "$backend" = sqlite ]; then
        start 18193 --store "$work/accounts-server.store"
        servers_of_accounts=(http://127.0.0.1:18193 http://127.0.0.1:18193)
    else
        start 18194 --store "$postgres" --schema "accounts_$$"
        start 18195 --store "$postgres" --schema "accounts_$$"
        servers_of_accounts=(http://127.0.0.1:18194 http://127.0.0.1:18195)
    fi
    local alice bob
    alice=$("$web" token alice)
    bob=$("$web" token bob)
    # user_device NAME USER ARGS…: the expenses command on device NAME of USER (alice's first
    # device and bob's second through the first server, the others through the second).
    user_device() {
        local name=$1 user=$2 token server
        shift 2
        token=$([ "$user" = alice ] && echo "$alice" || echo "$bob")
        case "$name" in alice1 | bob2) server=${servers_of_accounts[0]} ;; *) server=${servers_of_accounts[1]} ;; esac
        EXPENSES_SERVER="$server" EXPENSES_SYNC_TOKEN="$token" "$expenses" "$@" --store "$work/accounts-$backend-$name.store"
    }
    # Each user's first device finds nothing of theirs (not the other's), seeds its own data and
    # sends it.
    for pair in alice1:alice bob1:bob; do
        user_device "${pair%%:*}" "${pair##*:}" sync | shows ": 11 sent, 0 received." || fail "$pair's first sync did not seed and send its own data"
    done
    user_device alice1 alice add 42 --note "Alice private note" > /dev/null
    user_device alice1 alice sync > /dev/null
    user_device bob1 bob add 24 --note "Bob private note" > /dev/null
    user_device bob1 bob sync > /dev/null
    for pair in alice2:alice bob2:bob alice1:alice bob1:bob; do user_device "${pair%%:*}" "${pair##*:}" sync > /dev/null; done
    user_device alice2 alice list | shows "Alice private note" || fail "alice's second device lacks her note"
    user_device bob2 bob list | shows "Bob private note" || fail "bob's second device lacks his note"
    [ "$(user_device alice2 alice list | grep -c "Food")" -ge 1 ] || fail "alice's categories did not reach her second device"
    # The bytes check finds the note where it is (alice's own devices), so its absence means something.
    cat "$work/accounts-$backend-alice2.store"* | grep -caF "Alice private note" > /dev/null || fail "the store file check does not find alice's note on her own device"
    for name in bob1 bob2; do
        if cat "$work/accounts-$backend-$name.store"* | grep -caF "Alice private note" > /dev/null; then fail "alice's note is in $name's store file"; fi
    done
    for name in alice1 alice2; do
        if cat "$work/accounts-$backend-$name.store"* | grep -caF "Bob private note" > /dev/null; then fail "bob's note is in $name's store file"; fi
    done
    # Each user has one Food category of their own on the server: uniqueness is per user.
    curl -fs -H "Authorization: Bearer $alice" "${servers_of_accounts[0]}/api/categories" | shows '"name":"Food"' || fail "alice's categories on the server"
    # The API: a bad token is 401; another user's expense is not there (404), and not changed.
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${alice}x" "${servers_of_accounts[0]}/api/expenses")" = 401 ] || fail "a forged token was not refused"
    local id
    id=$(curl -fs -H "Authorization: Bearer $alice" "${servers_of_accounts[0]}/api/expenses?search=Alice%20private" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
    [ -n "$id" ] || fail "alice's expense has no id in the API"
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $bob" "${servers_of_accounts[1]}/api/expenses/$id")" = 404 ] || fail "bob read alice's expense"
    [ "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer $bob" "${servers_of_accounts[1]}/api/expenses/$id")" = 404 ] || fail "bob deleted alice's expense"
    sharing
    # A device switching users: offline, alice's first device edits her note and files a new
    # expense, then syncs with bob's token. Nothing is sent — neither becomes bob's — until the
    # device is told: with alice's token again her changes go to her account; with
    # `--on-user-change discard` the device drops her data and syncs as bob.
    user_device alice1 alice edit "$(user_device alice1 alice list | awk 'index($0, "Alice private note") { print $1; exit }')" --note "Taken by bob" > /dev/null
    user_device alice1 alice add 7 --note "Alice offline" > /dev/null
    if user_device alice1 bob sync > "$work/switched.txt" 2>&1; then fail "a device that synced as alice synced as bob without being told"; fi
    shows "now serves bob" < "$work/switched.txt" || fail "the switched device's sync did not say why it stopped: $(cat "$work/switched.txt")"
    for what in "Taken by bob" "Alice offline"; do
        if curl -fs -H "Authorization: Bearer $bob" "${servers_of_accounts[0]}/api/expenses" | shows "$what"; then fail "alice's '$what' became bob's"; fi
    done
    curl -fs -H "Authorization: Bearer $alice" "${servers_of_accounts[0]}/api/expenses" | shows "Alice private note" || fail "alice's note changed on the server"
    user_device alice1 alice sync > /dev/null
    curl -fs -H "Authorization: Bearer $alice" "${servers_of_accounts[0]}/api/expenses" | shows "Alice offline" || fail "alice's offline expense did not reach her account"
    user_device alice1 bob sync --on-user-change discard | shows "Dropped alice's data" || fail "the device did not discard alice's data when told"
    if user_device alice1 bob list | shows "Alice offline"; then fail "alice's expense stayed on the device given to bob"; fi
    user_device alice1 bob list | shows "Bob private note" || fail "the device given to bob lacks his data"
    # Per-user cost: alice syncs 10 changes with bob's data small, then with ROWS more rows of his.
    cost() {
        for n in $(seq 1 10); do user_device alice2 alice add "$n" --note "cost $1 $n" > /dev/null; done
        local start end
        start=$(date +%s%N)
        user_device alice2 alice sync > /dev/null
        end=$(date +%s%N)
        echo $(((end - start) / 1000000))
    }
    local small large
    small=$(cost small)
    awk -v rows="$rows" 'BEGIN { print "amount,date,note,category"; for (i = 1; i <= rows; i++) printf "%d.5,2026-09-%02d,bob bulk %d,Bulk\n", i % 90 + 1, i % 28 + 1, i }' > "$work/bob-bulk.csv"
    user_device bob1 bob import "$work/bob-bulk.csv" > /dev/null
    user_device bob1 bob sync > /dev/null
    large=$(cost large)
    echo "per-user cost: alice's sync of 10 changes took ${small} ms with bob's data small, ${large} ms with $rows more rows of bob's on the server"
    if cat "$work/accounts-$backend-alice2.store"* | grep -caF "bob bulk" > /dev/null; then fail "bob's rows reached alice's device"; fi
    # Devices of other users holding long polls over HTTP: none refused, /health answers beside
    # them (a short size here; Benchmarks/Results/sync-waiting-http.md has 1,000 and 2,000).
    if [ "$backend" = sqlite ]; then
        python3 "$(dirname "$0")/sync-waiting-load.py" "${servers_of_accounts[0]}" "${servers[0]}" "$web" 300 > "$work/waiting-load.txt" \
            || { cat "$work/waiting-load.txt"; fail "devices waiting over HTTP were refused, or /health did not answer beside them"; }
        echo "waiting devices over HTTP: $(tail -n 1 "$work/waiting-load.txt")"
    fi
    stop_servers
    unset EXPENSES_AUTH_SECRET
    export EXPENSES_SYNC_TOKEN=$saved_token
}

scenario sqlite
accounts sqlite
if [ -n "$postgres" ]; then
    scenario postgres
    accounts postgres
fi
echo "sync scenario passed"
