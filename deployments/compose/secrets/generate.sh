#!/bin/sh
# Writes the secrets compose.yaml reads, once; never overwrites one (the
# master key decrypts every stored wallet: losing it loses them).
#
# The Temporal frontend's mutual TLS: a CA (its key stays here, to issue
# more client certificates), the frontend's certificate for the name
# temporal-frontend, and the client certificate ats, the Web UI and the
# namespace setup present. Needs openssl.
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

if [ ! -e temporal_ca.pem ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
		-subj "/CN=ats Temporal CA" -keyout temporal_ca_key.pem -out temporal_ca.pem 2>/dev/null
	echo "wrote secrets/temporal_ca.pem"
fi
# leaf NAME CN USAGE [SAN]: a key and a certificate signed by the CA.
leaf() {
	[ -e "$1.pem" ] && return
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
		-keyout "$1_key.pem" -out "$1.csr" 2>/dev/null
	printf 'extendedKeyUsage=%s\n%s' "$3" "${4:+subjectAltName=$4}" > "$1.ext"
	openssl x509 -req -in "$1.csr" -CA temporal_ca.pem -CAkey temporal_ca_key.pem -CAcreateserial \
		-days 825 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
	rm -f "$1.csr" "$1.ext"
	echo "wrote secrets/$1.pem"
}
leaf temporal_frontend temporal-frontend serverAuth DNS:temporal-frontend
leaf temporal_client ats clientAuth
