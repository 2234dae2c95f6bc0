#!/usr/bin/env bash
# Installs the Debian packages named as arguments when they are missing (apt-get; sudo when
# not root). On macOS it installs the Homebrew equivalents of the ones that have one.
set -euo pipefail

if command -v dpkg-query >/dev/null 2>&1; then
    missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && exit 0
    echo "Installing missing system packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif command -v brew >/dev/null 2>&1; then
    for package in "$@"; do
        case "$package" in
            libmicrohttpd-dev) formula=libmicrohttpd ;;
            libsqlite3-dev) formula=sqlite ;;
            pkg-config|wrk|curl) formula=$package ;;
            *) echo "note: no Homebrew formula known for $package; install it yourself if a step needs it"; continue ;;
        esac
        brew list "$formula" >/dev/null 2>&1 || brew install "$formula"
    done
else
    echo "error: neither apt-get nor brew found; install these yourself: $*" >&2
    exit 1
fi
