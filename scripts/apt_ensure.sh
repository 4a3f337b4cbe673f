#!/usr/bin/env bash
# apt_ensure.sh "CMD [CMD ...]" PACKAGE [PACKAGE ...]
# Install Debian PACKAGEs (no recommends) unless every CMD is already on PATH; then print the
# first CMD's version. Idempotent; installing needs root. No service is started. Installs
# take one lock (APT_LOCK, shared with scripts/slurm/start.sh), so test workers running side by
# side never race on apt's lists or dpkg; a worker that waited finds the commands installed.
set -euo pipefail
APT_LOCK=${APT_LOCK:-/tmp/gpuledger-apt.lock}

commands=($1)
shift
version() { "${commands[0]}" --version 2>/dev/null | head -n 1; }

all_present() {
    for command in "${commands[@]}"; do
        command -v "$command" >/dev/null 2>&1 || return 1
    done
}
if all_present; then
    echo "${commands[0]} already installed: $(version)"
    exit 0
fi
exec 9>"$APT_LOCK"
flock -w 1200 9 || { echo "apt_ensure.sh: waited 20 min for $APT_LOCK" >&2; exit 1; }
if all_present; then # installed by whoever held the lock
    echo "${commands[0]} already installed: $(version)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "${commands[*]} missing and installing needs root: apt-get install $*" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# apt-get without fd 9: a service a package's postinst starts must not inherit the lock
apt-get -o DPkg::Lock::Timeout=600 update -qq 9>&-
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" >/dev/null 9>&-
echo "${commands[0]} installed: $(version)"
