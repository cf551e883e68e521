#!/bin/sh
# The stand-in's start (Dockerfile beside): on an empty data directory, initdb with
# POSTGRES_USER (default postgres) and POSTGRES_PASSWORD, then POSTGRES_DB (default the
# user's name), password logins from any host; then PostgreSQL itself, as user
# postgres, listening on every address, as the process the container's signals reach.
set -eu
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:-}" > "$pwfile"
    chown postgres "$pwfile"
    as_postgres initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$db" != postgres ]; then
        as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
        as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d postgres \
            -c "CREATE DATABASE \"$db\" OWNER \"$user\"" >/dev/null
        as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    fi
fi
if [ "${1:-}" = postgres ]; then
    shift
    exec setpriv --reuid=postgres --regid=postgres --init-groups \
        postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
