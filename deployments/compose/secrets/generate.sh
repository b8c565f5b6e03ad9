#!/bin/sh
# Writes the secrets compose.yaml reads, once; never overwrites one (the
# master key decrypts every stored wallet: losing it loses them).
set -eu
cd "$(dirname "$0")"
umask 077
new() { [ -e "$1" ] || { eval "$2" > "$1"; echo "wrote secrets/$1"; }; }
rand() { head -c32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='; }
new postgres_password 'rand'
new database_url 'printf "postgres://ats:%s@postgres:5432/ats?sslmode=disable" "$(cat postgres_password)"'
new master_key 'head -c32 /dev/urandom | base64'
new ops_token 'rand'
new grafana_admin_password 'rand'
