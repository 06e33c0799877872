#!/usr/bin/env bash
# Installs what a fresh machine needs to build Swidux (SQLite's development files for GRDB).
# `setup.sh server` also installs the PostgreSQL server (Debian's postgresql package) when
# initdb is missing: the sync server's tests start throwaway clusters with it (Server/).
set -euo pipefail
packages=()
if ! { [ -f /usr/include/sqlite3.h ] || pkg-config --exists sqlite3 2>/dev/null; }; then
  packages+=(libsqlite3-dev)
fi
if [ "${1:-}" = "server" ] && ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  packages+=(postgresql)
fi
if [ ${#packages[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${packages[@]}"
  else
    echo "setup: missing ${packages[*]} (SQLite's development files / the PostgreSQL server); install them with your package manager" >&2
    exit 1
  fi
fi
