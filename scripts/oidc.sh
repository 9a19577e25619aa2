#!/usr/bin/env bash
# oidc.sh builds and starts the example OpenID provider of
# github.com/zitadel/oidc (an OpenID-certified Go library) for the OAuth
# tests and prints the lines that point them at it:
#
#	eval "$(scripts/oidc.sh)"   # sets TOOLAPI_TEST_OIDC_*
#	go test ./oauth/...
#
# The provider keeps everything in memory and knows fixed clients and
# users: the service user sid1 (secret verysecret) gets tokens by the
# client credentials grant; the web client web (secret secret) signs in
# the user test-user@localhost (password verysecure) by the authorization
# code flow and exchanges tokens (RFC 8693); the client api (secret
# secret) is the resource server at the introspection endpoint. It
# listens at the first free port from 59998 (on every interface: the
# example takes only a port) under the issuer
# http://localhost:PORT/. Everything but the export lines goes to stderr,
# with the command that stops the provider.
set -euo pipefail

log() { echo "oidc.sh: $*" >&2; }

version=v3.52.0
bin="${TOOLAPI_OIDC_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/toolapi/oidc-$version}"
if [[ ! -x "$bin/server" ]]; then
	log "building github.com/zitadel/oidc/v3/example/server@$version"
	mkdir -p "$bin"
	GOBIN="$bin" GOFLAGS= go install "github.com/zitadel/oidc/v3/example/server@$version" >&2
fi

dir=$(mktemp -d /tmp/toolapi-oidc.XXXXXX)
port=59998
for ((tries = 0; tries < 50; tries++, port++)); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		continue # taken
	fi
	PORT=$port REDIRECT_URI=http://localhost:9999/auth/callback \
		setsid "$bin/server" >"$dir/log" 2>&1 &
	pid=$!
	echo "$pid" >"$dir/pid"
	for ((i = 0; i < 100; i++)); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			break 2
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	log "the provider did not start on port $port:"
	tail -n 5 "$dir/log" >&2
	pid=""
done
if [[ -z "${pid:-}" ]]; then
	log "no port for the provider"
	exit 1
fi
log "provider at http://localhost:$port/ (log $dir/log); stop it with: kill $pid"
echo "export TOOLAPI_TEST_OIDC_ISSUER=http://localhost:$port/"
echo "export TOOLAPI_TEST_OIDC_CLIENT=sid1 TOOLAPI_TEST_OIDC_SECRET=verysecret"
echo "export TOOLAPI_TEST_OIDC_WEB_CLIENT=web TOOLAPI_TEST_OIDC_WEB_SECRET=secret TOOLAPI_TEST_OIDC_WEB_REDIRECT=http://localhost:9999/auth/callback"
echo "export TOOLAPI_TEST_OIDC_API_CLIENT=api TOOLAPI_TEST_OIDC_API_SECRET=secret"
echo "export TOOLAPI_TEST_OIDC_USER=test-user@localhost TOOLAPI_TEST_OIDC_PASSWORD=verysecure"
