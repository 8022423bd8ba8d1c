#!/bin/sh
# bi_catalog_regen.sh writes bi_catalog.out, PostgreSQL 15's answers to
# the queries of bi_catalog.sql over bi_catalog_schema.sql, from the
# server at the URL it is given:
#
#   tests/e2e/testdata/bi_catalog_regen.sh 'postgres://freshet:PASSWORD@127.0.0.1:5432/bi_oracle?sslmode=disable'
#
# The database must be empty: the schema is created in it. The role
# must be called freshet, as Freshet's superuser, which owns everything
# there, so that owner and user names agree; on a scratch server:
#
#   CREATE ROLE freshet SUPERUSER LOGIN PASSWORD '...';
#   CREATE DATABASE bi_oracle OWNER freshet;
#
# Review the diff of bi_catalog.out before committing it.
set -eu
if [ $# -ne 1 ]; then
	echo "usage: $0 POSTGRESQL_URL" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
exec go test -run '^TestBICatalog$' -count=1 . -args -bi-oracle "$1"
