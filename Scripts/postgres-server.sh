#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: loopback only, a free port, password
# (scram-sha-256) authentication, run as the unprivileged user `postgres` when started by root
# (initdb refuses root). Installs Debian's `postgresql` package if no server is installed.
#
#   eval "$(Scripts/postgres-server.sh start /tmp/pg)"   # exports OPENSWIFTDATA_POSTGRES_URL (and _CA, its TLS root)
#   swift test --traits PostgreSQL
#   Scripts/postgres-server.sh stop /tmp/pg
#
# A hot standby of such a server (streaming replication, made with pg_basebackup -R), applying
# each commit DELAY milliseconds after the primary (recovery_min_apply_delay, so that replica
# lag is certain in tests; 0 by default):
#
#   eval "$(Scripts/postgres-server.sh standby /tmp/pg /tmp/pg-standby 1500)"   # exports OPENSWIFTDATA_POSTGRES_STANDBY_URL
#   Scripts/postgres-server.sh stop /tmp/pg-standby
#
# For failover tests: `halt FOLDER` stops a server and keeps its files, `resume FOLDER` starts it
# again, `promote FOLDER` makes a standby the primary.
#
# PgBouncer in front of such a server (Debian's `pgbouncer`, installed if missing), in session
# pooling mode or, for the test that it is refused, transaction mode resetting each session:
#
#   eval "$(Scripts/postgres-server.sh pgbouncer /tmp/pg /tmp/pg-bouncer session)"   # exports OPENSWIFTDATA_PGBOUNCER_URL
#   Scripts/postgres-server.sh stop /tmp/pg-bouncer
set -euo pipefail
command=${1:?start, standby, pgbouncer, halt, resume, promote or stop}
folder=${2:?a folder for the server files}

as_server_user() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

new_password() {
    head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

find_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

case "$command" in
start)
    bin=$(find_bin)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        echo "installing PostgreSQL…" >&2
        apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >&2
        bin=$(find_bin)
    fi
    mkdir -p "$folder"
    [ "$(id -u)" = 0 ] && chown postgres "$folder"
    password=$(new_password)
    printf '%s\n' "$password" > "$folder/password"
    [ "$(id -u)" = 0 ] && chown postgres "$folder/password"
    as_server_user "$bin/initdb" -D "$folder/data" -U openswiftdata --pwfile="$folder/password" \
        --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1
    # TLS with a certificate authority of its own, so the tests can check sslmode=verify-full
    # and verify-ca: the server's certificate names `localhost` only (not 127.0.0.1).
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=OpenSwiftData test CA" \
        -keyout "$folder/ca.key" -out "$folder/ca.pem" >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
        -keyout "$folder/server.key" -out "$folder/server.csr" >/dev/null 2>&1
    printf 'subjectAltName=DNS:localhost\n' > "$folder/server.ext"
    openssl x509 -req -in "$folder/server.csr" -CA "$folder/ca.pem" -CAkey "$folder/ca.key" -CAcreateserial \
        -days 2 -extfile "$folder/server.ext" -out "$folder/server.pem" >/dev/null 2>&1
    chmod 600 "$folder/server.key"
    chmod 644 "$folder/ca.pem"
    [ "$(id -u)" = 0 ] && chown postgres "$folder/server.key" "$folder/server.pem"
    port=$(free_port)
    printf '%s\n' "$port" > "$folder/port"
    as_server_user "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $folder -c max_connections=500 -c fsync=off -c log_lock_waits=on -c deadlock_timeout=5ms -c ssl=on -c ssl_cert_file=$folder/server.pem -c ssl_key_file=$folder/server.key" start >&2
    echo "export OPENSWIFTDATA_POSTGRES_URL=postgres://openswiftdata:$password@127.0.0.1:$port/postgres"
    echo "export OPENSWIFTDATA_POSTGRES_CA=$folder/ca.pem"
    ;;
standby)
    bin=$(find_bin)
    standby=${3:?a folder for the standby files}
    delay=${4:-0}
    port=$(cat "$folder/port")
    password=$(cat "$folder/password")
    mkdir -p "$standby"
    [ "$(id -u)" = 0 ] && chown postgres "$standby"
    # The password from a file only the server user reads, not the command line.
    printf '127.0.0.1:%s:*:openswiftdata:%s\n' "$port" "$password" > "$standby/pgpass"
    chmod 600 "$standby/pgpass"
    [ "$(id -u)" = 0 ] && chown postgres "$standby/pgpass"
    as_server_user env PGPASSFILE="$standby/pgpass" "$bin/pg_basebackup" -h 127.0.0.1 -p "$port" -U openswiftdata \
        -D "$standby/data" -R -X stream >"$standby/basebackup.log" 2>&1
    standby_port=$(free_port)
    printf '%s\n' "$standby_port" > "$standby/port"
    as_server_user "$bin/pg_ctl" -D "$standby/data" -l "$standby/server.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $standby_port -k $standby -c max_connections=500 -c fsync=off -c hot_standby=on -c recovery_min_apply_delay=${delay}ms -c ssl=on -c ssl_cert_file=$folder/server.pem -c ssl_key_file=$folder/server.key" start >&2
    echo "export OPENSWIFTDATA_POSTGRES_STANDBY_URL=postgres://openswiftdata:$password@127.0.0.1:$standby_port/postgres"
    ;;
pgbouncer)
    bouncer=${3:?a folder for the PgBouncer files}
    mode=${4:-session}
    if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
        echo "installing PgBouncer…" >&2
        apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y pgbouncer >&2
    fi
    program=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
    port=$(cat "$folder/port")
    password=$(cat "$folder/password")
    mkdir -p "$bouncer"
    bouncer_port=$(free_port)
    printf '%s\n' "$bouncer_port" > "$bouncer/port"
    # The server's own user and password, which PgBouncer uses for SCRAM on both sides; the
    # file is the server user's alone.
    printf '"openswiftdata" "%s"\n' "$password" > "$bouncer/userlist.txt"
    chmod 600 "$bouncer/userlist.txt"
    reset=""
    # Transaction mode resets each server session as it is handed back, so that a client's
    # session settings are certain to be lost (as they are under load).
    [ "$mode" = transaction ] && reset="server_reset_query_always = 1"
    cat > "$bouncer/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $bouncer/userlist.txt
pool_mode = $mode
$reset
max_client_conn = 500
default_pool_size = 100
pidfile = $bouncer/pgbouncer.pid
logfile = $bouncer/pgbouncer.log
INI
    [ "$(id -u)" = 0 ] && chown -R postgres "$bouncer"
    as_server_user "$program" -d "$bouncer/pgbouncer.ini" >&2
    for _ in $(seq 50); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $bouncer_port), 1)" 2>/dev/null && break
        sleep 0.1
    done
    echo "export OPENSWIFTDATA_PGBOUNCER_URL=postgres://openswiftdata:$password@127.0.0.1:$bouncer_port/postgres"
    ;;
halt)
    bin=$(find_bin)
    as_server_user "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >&2
    ;;
resume)
    bin=$(find_bin)
    # Started again with the options it last ran with (postmaster.opts).
    as_server_user "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w restart >&2
    ;;
promote)
    bin=$(find_bin)
    as_server_user "$bin/pg_ctl" -D "$folder/data" -w promote >&2
    ;;
stop)
    if [ -f "$folder/pgbouncer.pid" ]; then
        kill "$(cat "$folder/pgbouncer.pid")" 2>/dev/null || true
        rm -rf "$folder"
        exit 0
    fi
    bin=$(find_bin)
    as_server_user "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >&2 || true
    rm -rf "$folder"
    ;;
*)
    echo "usage: $0 start FOLDER | standby PRIMARY_FOLDER FOLDER [DELAY_MS] | pgbouncer PRIMARY_FOLDER FOLDER [session|transaction] | halt FOLDER | resume FOLDER | promote FOLDER | stop FOLDER" >&2
    exit 2
    ;;
esac
