#!/usr/bin/env bash
# What can be checked of the Dockerfile without a Docker engine:
#  1. the runtime stage has what the image promises (non-root user, volume, port, health check,
#     --host 0.0.0.0, templates and public files);
#  2. `flowserver` built in release with --static-swift-stdlib needs no shared library beyond
#     those the runtime stage installs (their dependencies included) and Debian's base packages.
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
check "runtime stage copies Templates and Public" bash -c 'grep -q "^COPY Templates" <<<"$0" && grep -q "^COPY Public" <<<"$0"' "$runtime_stage"
check "builder uses --static-swift-stdlib in release" grep -q -- '-c release --static-swift-stdlib' Dockerfile

# The packages the runtime stage installs: the words after --no-install-recommends.
listed=$(grep -oE 'apt-get install -y --no-install-recommends [a-z0-9.+ -]+' <<<"$runtime_stage" \
    | sed 's/.*--no-install-recommends //' | tr ' ' '\n' | grep -v '^$' | sort -u)
allowed=$( { echo "$listed"
    apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
        --no-enhances $listed 2>/dev/null | grep -vE '^ |<' || true
    dpkg-query -W -f='${Package} ${Priority}\n' | awk '$2 == "required" {print $1}'
} | sed 's/:.*//' | sort -u)

echo "building flowserver in release with --static-swift-stdlib (as the Dockerfile does)"
swift build -c release --static-swift-stdlib --product flowserver >/dev/null
binary="$(swift build -c release --show-bin-path)/flowserver"

while read -r library; do
    [ -z "$library" ] && continue
    real=$(readlink -f "$library")
    package=$(dpkg -S "$library" 2>/dev/null || dpkg -S "$real" 2>/dev/null || true)
    package=${package%%:*}
    if [ -z "$package" ]; then
        check "$library belongs to a Debian package (a Swift runtime library would not)" false
    elif grep -qx "$package" <<<"$allowed"; then
        check "$library" true
    else
        check "$library comes from $package, which the runtime stage does not install" false
    fi
done < <(ldd "$binary" | awk '/=>/ {print $3} !/=>/ && /^\s*\// {print $1}')

echo "docker-runtime: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
