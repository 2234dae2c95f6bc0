#!/usr/bin/env bash
# What can be checked of the Dockerfile without a Docker engine:
#  1. the runtime stage has what the image promises (non-root user, volume, port, health check,
#     --host 0.0.0.0, templates and public files);
#  2. `flowserver` builds in release with --static-swift-stdlib, as the builder stage does;
#  3. the runtime stage runs: its instructions applied to a debootstrapped root of its Debian,
#     the binary started there as the image's user and checked (scripts/run-runtime-stage.py).
set -euo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
check() { # check DESCRIPTION COMMAND...
    local description=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $description"; fi
}

runtime_stage=$(awk '/^FROM /{stage=""} {stage=stage $0 "\n"} END{printf "%s", stage}' Dockerfile)
has() { grep -qE -- "$1" <<<"$runtime_stage"; }
check "runtime stage is slim Debian" has '^FROM debian:[a-z]+-slim'
check "runtime stage runs as a non-root user" has '^USER [a-z]'
check "runtime stage exposes 8080" has '^EXPOSE 8080'
check "runtime stage declares a data volume" has '^VOLUME '
check "runtime stage has a health check" has '^HEALTHCHECK '
check "the health check asks /healthz" has 'GET /healthz'
check "runtime stage listens on 0.0.0.0" has '0\.0\.0\.0'
check "runtime stage copies the templates" bash -c 'grep -q "^COPY Templates" <<<"$0"' "$runtime_stage"
check "builder uses --static-swift-stdlib in release" grep -q -- '-c release --static-swift-stdlib' Dockerfile

echo "building flowserver in release with --static-swift-stdlib (as the Dockerfile does)"
swift build -c release --static-swift-stdlib --product flowserver >/dev/null
binary="$(swift build -c release --show-bin-path)/flowserver"

echo "docker-runtime (static checks): $passed passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1

# 3. The runtime stage runs: a debootstrapped Debian root gets what the stage does, and the
#    server starts in it as the image's user (scripts/run-runtime-stage.py).
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo python3 scripts/run-runtime-stage.py "$binary"
