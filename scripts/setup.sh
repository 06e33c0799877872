#!/usr/bin/env bash
# Installs what a fresh machine needs to build Swidux (SQLite's development files for GRDB).
# `setup.sh server` also installs the PostgreSQL server (Debian's postgresql package) when
# initdb is missing: the sync server's tests start throwaway clusters with it (Server/).
# `setup.sh postgres` installs it too, then starts a local cluster for swidux-sync-server
# (made on first use; as root it runs as the system user `postgres`, since PostgreSQL
# refuses root — no sudo needed) and prints the URL to give to `--postgres`. Knobs:
# SWIDUX_PG_PORT (default 5433, so that it never meets a distribution's cluster on 5432),
# SWIDUX_PG_DIR (default ~/.local/share/swidux-postgres, as root /var/lib/postgresql/swidux).
set -euo pipefail
packages=()
if ! { [ -f /usr/include/sqlite3.h ] || pkg-config --exists sqlite3 2>/dev/null; }; then
  packages+=(libsqlite3-dev)
fi
if { [ "${1:-}" = "server" ] || [ "${1:-}" = "postgres" ]; } && ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
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

if [ "${1:-}" = "postgres" ]; then
  bin=$(dirname "$(compgen -G "/usr/lib/postgresql/*/bin/initdb" | sort -V | tail -n 1)")
  port=${SWIDUX_PG_PORT:-5433}
  run=()
  if [ "$(id -u)" -eq 0 ]; then
    dir=${SWIDUX_PG_DIR:-/var/lib/postgresql/swidux}
    run=(setpriv --reuid=postgres --regid=postgres --init-groups --)
    mkdir -p "$dir" && chown postgres:postgres "$dir" && chmod 700 "$dir"
  else
    dir=${SWIDUX_PG_DIR:-$HOME/.local/share/swidux-postgres}
    mkdir -p "$dir" && chmod 700 "$dir"
  fi
  if [ ! -f "$dir/PG_VERSION" ]; then
    # Role swidux, password secret, on the loopback interface only.
    pwfile=$(mktemp) && echo secret > "$pwfile" && chmod 644 "$pwfile"
    "${run[@]}" "$bin/initdb" -D "$dir" -U swidux --pwfile="$pwfile" --auth=scram-sha-256 >/dev/null
    rm -f "$pwfile"
  fi
  if ! "${run[@]}" "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    "${run[@]}" "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null \
      || { echo "setup: PostgreSQL did not start; see $dir/server.log" >&2; exit 1; }
  fi
  if ! PGPASSWORD=secret "$bin/psql" -h 127.0.0.1 -p "$port" -U swidux -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'swidux'" | grep -q 1; then
    PGPASSWORD=secret "$bin/createdb" -h 127.0.0.1 -p "$port" -U swidux swidux
  fi
  echo "PostgreSQL runs in $dir (stop: ${run[*]:+${run[*]} }$bin/pg_ctl -D $dir stop)"
  echo "postgres://swidux:secret@127.0.0.1:$port/swidux"
fi
