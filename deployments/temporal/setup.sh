#!/bin/sh
# Sets up the Temporal cluster of the Agent Trading Service, in two steps:
#
#   setup.sh schema      the persistence and visibility databases on PostgreSQL
#                        (created when missing, then migrated to the server's schema
#                        with temporal-sql-tool); run before the services start
#   setup.sh namespace   the service's namespace and the search attributes its
#                        workflows use (the Web UI's filters); run once the frontend answers
#
# Both are idempotent: run them at every release. compose (the temporal-setup
# services), Kubernetes (the temporal-setup Job) and the cluster tests
# (worker/clustertest) run this file. Settings, from the environment:
#
#   TEMPORAL_DB_ADDR, TEMPORAL_DB_USER, TEMPORAL_DB_PASSWORD,
#   TEMPORAL_DB_NAME, TEMPORAL_VISIBILITY_DB_NAME       as in config/production.yaml
#   TEMPORAL_ADDRESS            the frontend (host:port)
#   TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME
#                               a client certificate for the frontend's mutual TLS
#   TEMPORAL_NAMESPACE          the namespace (default)
#   TEMPORAL_RETENTION          how long closed workflows are kept (720h: 30 days)
#   TEMPORAL_SQL_TOOL, TEMPORAL_CLI
#                               the tools (temporal-sql-tool, temporal: what the
#                               admin-tools image holds; .bin/ in the tests)
set -eu

SQL_TOOL=${TEMPORAL_SQL_TOOL:-temporal-sql-tool}
CLI=${TEMPORAL_CLI:-temporal}
NAMESPACE=${TEMPORAL_NAMESPACE:-default}
RETENTION=${TEMPORAL_RETENTION:-720h}

# The custom search attributes of workflows.SearchAttributes() (name=type);
# go test ./deployments/ checks this list against the code.
SEARCH_ATTRIBUTES="UserId=Keyword AgentId=Keyword StrategyType=Keyword StrategyStatus=Keyword TokenId=Keyword OrderStatus=Keyword WorkflowKind=Keyword Mode=Keyword"

say() { echo "temporal-setup: $*" >&2; }

schema() {
	host=${TEMPORAL_DB_ADDR%:*}
	port=${TEMPORAL_DB_ADDR##*:}
	# The password travels in the environment, never in argv.
	export SQL_PASSWORD="${TEMPORAL_DB_PASSWORD:-}"
	for pair in "${TEMPORAL_DB_NAME:-temporal}=temporal" "${TEMPORAL_VISIBILITY_DB_NAME:-temporal_visibility}=visibility"; do
		db=${pair%=*}
		kind=${pair#*=}
		sql() { "$SQL_TOOL" --plugin postgres12 --ep "$host" -p "$port" -u "$TEMPORAL_DB_USER" --db "$db" "$@"; }
		if sql create-database >/dev/null 2>&1; then
			say "created database $db"
		fi
		# Versioning tables first (a no-op when they exist), then every
		# migration up to the server's version, from the tool's embedded schema.
		sql setup-schema -v 0.0 >/dev/null 2>&1 || true
		sql update-schema --schema-name "postgresql/v12/$kind"
		say "database $db at the $kind schema of this server"
	done
}

namespace() {
	set -- --address "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS is required}"
	if [ -n "${TEMPORAL_TLS_CERT:-}" ]; then
		set -- "$@" --tls-cert-path "$TEMPORAL_TLS_CERT" --tls-key-path "${TEMPORAL_TLS_KEY:?}" --tls-ca-path "${TEMPORAL_TLS_CA:?}"
		if [ -n "${TEMPORAL_TLS_SERVER_NAME:-}" ]; then
			set -- "$@" --tls-server-name "$TEMPORAL_TLS_SERVER_NAME"
		fi
	fi
	# The frontend answers once it joined the cluster; give it two minutes.
	tries=0
	until "$CLI" operator cluster health "$@" >/dev/null 2>&1; do
		tries=$((tries + 1))
		if [ "$tries" -ge 120 ]; then
			say "the frontend at $TEMPORAL_ADDRESS does not answer"
			exit 1
		fi
		sleep 1
	done
	if ! "$CLI" operator namespace describe "$@" --namespace "$NAMESPACE" >/dev/null 2>&1; then
		"$CLI" operator namespace create "$@" --namespace "$NAMESPACE" --retention "$RETENTION" >/dev/null
		say "created namespace $NAMESPACE (retention $RETENTION)"
	fi
	# A new namespace reaches the frontends' caches within their refresh
	# interval (10 s by default).
	tries=0
	until have=$("$CLI" operator search-attribute list "$@" --namespace "$NAMESPACE" --output json 2>/dev/null); do
		tries=$((tries + 1))
		if [ "$tries" -ge 60 ]; then
			say "the namespace $NAMESPACE does not show up"
			exit 1
		fi
		sleep 1
	done
	for sa in $SEARCH_ATTRIBUTES; do
		name=${sa%=*}
		case $have in
		*\"$name\"*) continue ;;
		esac
		"$CLI" operator search-attribute create "$@" --namespace "$NAMESPACE" --name "$name" --type "${sa#*=}" >/dev/null
		say "registered search attribute $name"
	done
}

case "${1:-}" in
schema) schema ;;
namespace) namespace ;;
*)
	echo "usage: $0 schema|namespace" >&2
	exit 2
	;;
esac
