#!/bin/sh
# First start: initialise the cluster in PGDATA with one role and one database, reached over TCP
# with a password. Later starts: the cluster in the volume as it is. Then PostgreSQL in the
# foreground as PID 1 (logs on stderr).
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
user="${POSTGRES_USER:-mars}"
db="${POSTGRES_DB:-mars}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  initdb --username=postgres --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=/run/postgresql" -w start >/dev/null
  psql -v ON_ERROR_STOP=1 -h /run/postgresql -U postgres -d postgres -q \
    -v user="$user" -v db="$db" -v pw="$POSTGRES_PASSWORD" <<'SQL'
CREATE ROLE :"user" LOGIN PASSWORD :'pw';
CREATE DATABASE :"db" OWNER :"user";
SQL
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres-start: initialised $PGDATA (role $user, database $db)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/run/postgresql
