#!/usr/bin/env bash
# Install Prometheus and promtool (Debian package) if missing. Idempotent; runs as root.
# Recommends (node-exporter, smartmontools, ...) are skipped; no service is started.
set -euo pipefail

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    echo "prometheus already installed: $(prometheus --version 2>&1 | head -n 1)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
echo "prometheus installed: $(prometheus --version 2>&1 | head -n 1)"
