#!/usr/bin/env bash
# The studio's browser checks (studio-check.mjs) against the three kinds of store, each compared
# with what the app's own commands report, as CI runs them:
#   1. the expenses example's seeded store file (a copy of it),
#   2. the PostgreSQL namespace `expenses` that `expenses --store POSTGRES_URL` seeded,
#   3. a copy of the SwiftData store written on an Apple platform (../shared/fixtures).
# In each, a save by another process must appear in the open page: `expenses add` for the first
# two, a second studio started with --allow-edits for the Apple file. Screenshots of each view go
# to WORK/<kind>/ (Tools/Studio/README.md's come from the first).
#
#   Tools/Studio/Scripts/browser-checks.sh BIN_FOLDER WORK EXPENSES_STORE POSTGRES_URL APPLE_STORE
#
# BIN_FOLDER holds `studio` and `expenses` built with the Studio trait; needs chromium and node.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=$1 work=$2 expenses_store=$3 postgres_url=$4 apple_fixture=$5
mkdir -p "$work"
pids=()
# Each studio stops on SIGINT (gracefully: its log says the server shut down).
stop_all() { for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done; wait "${pids[@]}" 2>/dev/null || true; }
trap stop_all EXIT

# Starts a studio on PORT (the rest of the arguments are its own) and sets `url` to the address
# it printed, with the token. Runs in this shell (not in a command substitution) so that its
# process is in `pids` and stopped at the end.
start_studio() {
    local name=$1 port=$2
    shift 2
    "$bin/studio" "$@" --port "$port" > "$work/$name.out" 2> "$work/$name.log" &
    pids+=($!)
    for _ in $(seq 1 100); do
        [ -s "$work/$name.out" ] && break
        sleep 0.1
    done
    url=$(head -1 "$work/$name.out")
    [[ "$url" == http://127.0.0.1:$port/\?token=* ]] || { echo "the studio on port $port printed '$url' first" >&2; cat "$work/$name.log" >&2; exit 1; }
}

# The number of expenses an `expenses list` run reports ("Total: 8.75 (1 expense)").
expenses_count() { "$bin/expenses" list "$@" | sed -n 's/^Total: .* (\([0-9]*\) expenses\{0,1\})$/\1/p'; }

check() {
    local name=$1 url=$2 spec=$3
    echo "$spec" > "$work/$name.json"
    if ! node --experimental-websocket Tools/Studio/Scripts/studio-check.mjs "$url" "$work/$name.json"; then
        tail -n 30 "$work/$name.log" >&2
        exit 1
    fi
}

# 1. The expenses file.
file="$work/expenses.store"
cp "$expenses_store" "$file"
start_studio file 18110 "$file"
check file "$url" "{
  \"entities\": [\"Category\", \"Expense\", \"Ledger\", \"Receipt\"],
  \"relationships\": [\"Category.expenses\", \"Expense.category\", \"Expense.ledger\", \"Ledger.expenses\", \"Expense.receipt\", \"Receipt.expense\"],
  \"filter\": { \"entity\": \"Expense\", \"property\": \"note\", \"op\": \"contains\", \"value\": \"coffee\", \"total\": $(expenses_count --store "$file" --search coffee) },
  \"paging\": { \"entity\": \"Expense\", \"sort\": \"amount\", \"total\": $(expenses_count --store "$file") },
  \"follow\": { \"entity\": \"Category\", \"property\": \"name\", \"value\": \"Food\", \"relationship\": \"expenses\", \"total\": $(expenses_count --store "$file" --category Food) },
  \"live\": { \"entity\": \"Expense\", \"command\": \"'$bin/expenses' add 9.99 --note 'Live from the command line' --store '$file'\", \"text\": \"Live from the command line\" },
  \"screenshots\": \"$work/file\" }"

# 2. The PostgreSQL namespace.
start_studio postgres 18111 "$postgres_url" --schema expenses
check postgres "$url" "{
  \"entities\": [\"Category\", \"Expense\", \"Ledger\", \"Receipt\"],
  \"relationships\": [\"Category.expenses\", \"Expense.category\", \"Expense.ledger\", \"Ledger.expenses\", \"Expense.receipt\", \"Receipt.expense\"],
  \"filter\": { \"entity\": \"Expense\", \"property\": \"note\", \"op\": \"contains\", \"value\": \"café\", \"total\": $(expenses_count --store "$postgres_url" --search café) },
  \"paging\": { \"entity\": \"Expense\", \"sort\": \"date\", \"total\": $(expenses_count --store "$postgres_url") },
  \"follow\": { \"entity\": \"Category\", \"property\": \"name\", \"value\": \"Food\", \"relationship\": \"expenses\", \"total\": $(expenses_count --store "$postgres_url" --category Food) },
  \"live\": { \"entity\": \"Expense\", \"command\": \"'$bin/expenses' add 4.50 --note 'Live from another process' --store '$postgres_url'\", \"text\": \"Live from another process\" },
  \"screenshots\": \"$work/postgres\" }"

# 3. The Apple-written file: its four items (Rope, Shot Wooden Stick, Stone, Stone Axe), as
# inspect-store counts them and AppleStoreFileTests reads them.
mkdir -p "$work/apple"
cp "$apple_fixture" "$work/apple/default.store"
items=$("$bin/inspect-store" "$work/apple/default.store" | sed -n 's/^ *Item *\([0-9]*\) rows.*/\1/p')
start_studio apple-editor 18113 "$work/apple/default.store" --allow-edits
editor=$url
start_studio apple 18112 "$work/apple/default.store"
check apple "$url" "{
  \"entities\": [\"Component\", \"CraftingRecipe\", \"Item\"],
  \"relationships\": [\"Component.craftingRecipe\", \"CraftingRecipe.requiredComponents\", \"Component.item\", \"CraftingRecipe.producedItem\", \"Item.craftingRecipe\"],
  \"filter\": { \"entity\": \"Item\", \"property\": \"name\", \"op\": \"contains\", \"value\": \"stone\", \"total\": 2 },
  \"paging\": { \"entity\": \"Item\", \"sort\": \"name\", \"total\": $items },
  \"follow\": { \"entity\": \"Item\", \"property\": \"name\", \"value\": \"Stone Axe\", \"relationship\": \"craftingRecipe\", \"total\": 1 },
  \"live\": { \"entity\": \"Item\", \"command\": \"Tools/Studio/Scripts/studio-edit.sh '$editor' Item name Rope name 'Hemp rope'\", \"text\": \"Hemp rope\" },
  \"screenshots\": \"$work/apple-shots\" }"
# The edit is in the file's history, by the studio.
"$bin/inspect-store" "$work/apple/default.store" --history 1 | grep -q "studio" || { echo "the Apple file's newest transaction is not the studio's" >&2; exit 1; }
# Every studio stops on SIGINT.
stop_all
for pid in "${pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then echo "a studio (process $pid) did not stop on SIGINT" >&2; exit 1; fi
done
pids=()
echo "studio browser checks passed (screenshots in $work/file, $work/postgres, $work/apple-shots)"
