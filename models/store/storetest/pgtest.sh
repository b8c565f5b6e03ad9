#!/usr/bin/env bash
# pgtest.sh starts or stops a throwaway PostgreSQL server for the store tests.
#
#   pgtest.sh start   initdb into $PGTEST_DIR (default: a fresh mktemp dir),
#                     start on a free loopback port (or $PGTEST_PORT) with
#                     trust auth, and print the connection URL on stdout, e.g.
#                       export ATS_TEST_DATABASE_URL=$(models/store/storetest/pgtest.sh start)
#   pgtest.sh stop [DIR]
#                     stop the server started in DIR and delete DIR. "start"
#                     prints DIR on stderr and records it in
#                     ${TMPDIR:-/tmp}/ats-pgtest.last, which "stop" uses when
#                     DIR is omitted.
#
# The server binaries (initdb, pg_ctl) must be on PATH or in /usr/local/bin.
# When run as root, the server runs as the "postgres" user, as PostgreSQL
# refuses to run as root.
set -euo pipefail

for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && PATH="$d:$PATH"; done
PATH="/usr/local/bin:$PATH"
last_file="${TMPDIR:-/tmp}/ats-pgtest.last"

as_pg() {
	if [ "$(id -u)" = "0" ]; then
		su postgres -s /bin/bash -c "$1"
	else
		bash -c "$1"
	fi
}

port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
	local dir="${PGTEST_DIR:-}"
	if [ -z "$dir" ]; then
		dir="$(mktemp -d "${TMPDIR:-/tmp}/ats-pgtest.XXXXXX")"
	fi
	mkdir -p "$dir"
	if [ "$(id -u)" = "0" ]; then
		chown postgres: "$dir"
	fi
	chmod 700 "$dir"

	local port="${PGTEST_PORT:-}"
	if [ -z "$port" ]; then
		port=55432
		while ! port_free "$port"; do
			port=$((port + 1))
		done
	fi

	as_pg "initdb -D '$dir/data' -U postgres --auth=trust --encoding=UTF8 --no-locale >'$dir/initdb.log' 2>&1"
	# fsync off and a small footprint: this is a disposable test server.
	as_pg "pg_ctl -D '$dir/data' -l '$dir/server.log' -w -t 60 \
		-o \"-c listen_addresses=127.0.0.1 -p $port -k '$dir' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200\" \
		start >/dev/null"
	echo "$dir" >"$last_file"
	echo "pgtest: server in $dir (stop with: $0 stop $dir)" >&2
	echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
}

stop() {
	local dir="${1:-}"
	if [ -z "$dir" ] && [ -f "$last_file" ]; then
		dir="$(cat "$last_file")"
	fi
	if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
		echo "pgtest: no server directory given or found" >&2
		exit 1
	fi
	as_pg "pg_ctl -D '$dir/data' -m fast -w stop >/dev/null" || true
	rm -rf "$dir"
	if [ -f "$last_file" ] && [ "$(cat "$last_file")" = "$dir" ]; then
		rm -f "$last_file"
	fi
}

case "${1:-}" in
start) start ;;
stop) stop "${2:-}" ;;
*)
	echo "usage: $0 start | stop [DIR]" >&2
	exit 2
	;;
esac
