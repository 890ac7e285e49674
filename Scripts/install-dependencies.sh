#!/usr/bin/env bash
# Installs what OpenSwiftData needs from the system: SQLite's headers and library.
# Swift itself (6.0 or newer) must already be installed.
set -euo pipefail
if [ -f /usr/include/sqlite3.h ] || pkg-config --exists sqlite3 2>/dev/null; then
    exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libsqlite3-dev
elif command -v dnf >/dev/null 2>&1; then
    sudo dnf install -y sqlite-devel
elif command -v brew >/dev/null 2>&1; then
    brew install sqlite
else
    echo "Install SQLite's development files (libsqlite3-dev or sqlite-devel) and run again." >&2
    exit 1
fi
