#!/usr/bin/env bash
# postgres.sh starts a throwaway PostgreSQL server on loopback for the
# storage tests and prints the line that points them at it:
#
#	eval "$(scripts/postgres.sh)"   # sets TOOLAPI_TEST_POSTGRES
#	go test ./examples/album/...
#
# It installs Debian's postgresql package when no server is installed,
# creates a cluster in a new temporary folder owned by the postgres user
# (or the current user, when not root), listening on 127.0.0.1 only at the
# first free port from 55432, and creates the user and database toolapi.
# Everything but the export line goes to stderr, with the command that
# stops the server.
set -euo pipefail

log() { echo "postgres.sh: $*" >&2; }

pgbin() {
	local dir
	dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
		echo "$dir"
	fi
}

PGBIN=$(pgbin)
if [[ -z "$PGBIN" ]]; then
	log "installing postgresql from Debian's packages"
	if [[ $(id -u) -ne 0 ]]; then
		SUDO=sudo
	else
		SUDO=
	fi
	$SUDO apt-get update >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends postgresql >&2
	PGBIN=$(pgbin)
	if [[ -z "$PGBIN" ]]; then
		log "postgresql installed, but no initdb and pg_ctl under /usr/lib/postgresql"
		exit 1
	fi
fi

dir=$(mktemp -d /tmp/toolapi-postgres.XXXXXX)
password=toolapi
# As root, the server runs as the postgres user, which the package creates.
as=()
if [[ $(id -u) -eq 0 ]]; then
	chown postgres: "$dir"
	as=(runuser -u postgres --)
fi
printf '%s\n' "$password" >"$dir/pwfile"
chmod 644 "$dir/pwfile"

"${as[@]}" "$PGBIN/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" \
	--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >&2

# The first port from 55432 the server can bind. A port with no listener
# may still be taken (these ports lie in Linux's range for outgoing
# connections), so a start that cannot bind moves on to the next port.
port=""
for p in $(seq 55432 55532); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		continue # a server listens there
	fi
	if "${as[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
		-o "-c listen_addresses=127.0.0.1 -p $p -k $dir -c fsync=off -c max_connections=200" start >&2; then
		port=$p
		break
	fi
	if ! grep -q "could not bind\|could not create any TCP/IP sockets" "$dir/server.log"; then
		log "the server did not start; see $dir/server.log"
		exit 1
	fi
	: >"$dir/server.log"
done
if [[ -z "$port" ]]; then
	log "no port between 55432 and 55532 could be bound"
	exit 1
fi

psql=("${as[@]}" "$PGBIN/psql" -h "$dir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)
"${psql[@]}" -c "CREATE ROLE toolapi LOGIN PASSWORD '$password'" >&2
"${psql[@]}" -c "CREATE DATABASE toolapi OWNER toolapi" >&2

log "server running in $dir on 127.0.0.1:$port"
log "stop it with: ${as[*]} $PGBIN/pg_ctl -D $dir/data stop"
echo "export TOOLAPI_TEST_POSTGRES=postgres://toolapi:$password@127.0.0.1:$port/toolapi?sslmode=disable"
