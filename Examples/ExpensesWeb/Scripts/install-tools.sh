#!/usr/bin/env bash
# Installs what the web app's browser check and load test need, from Debian's packages:
# chromium (headless), wrk, curl, and Node.js (for the browser check's DevTools client).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" fonts-dejavu-core
