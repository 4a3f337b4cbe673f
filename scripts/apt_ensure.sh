#!/usr/bin/env bash
# apt_ensure.sh "CMD [CMD ...]" PACKAGE [PACKAGE ...]
# Install Debian PACKAGEs (no recommends) unless every CMD is already on PATH; then print the
# first CMD's version. Idempotent; installing needs root. No service is started.
set -euo pipefail

commands=($1)
shift
version() { "${commands[0]}" --version 2>/dev/null | head -n 1; }

missing=0
for command in "${commands[@]}"; do
    command -v "$command" >/dev/null 2>&1 || missing=1
done
if [ "$missing" -eq 0 ]; then
    echo "${commands[0]} already installed: $(version)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "${commands[*]} missing and installing needs root: apt-get install $*" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "$@" >/dev/null
echo "${commands[0]} installed: $(version)"
