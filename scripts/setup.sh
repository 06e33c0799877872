#!/usr/bin/env bash
# Installs what a fresh machine needs to build Swidux (SQLite's development files for GRDB).
set -euo pipefail
if ! { [ -f /usr/include/sqlite3.h ] || pkg-config --exists sqlite3 2>/dev/null; }; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libsqlite3-dev
  else
    echo "setup: SQLite development files (sqlite3.h) are missing; install them with your package manager" >&2
    exit 1
  fi
fi
