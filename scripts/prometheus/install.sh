#!/usr/bin/env bash
# Prometheus and promtool (Debian package) if missing; no service is started (start.sh runs
# the server). Idempotent; runs as root.
exec "$(dirname "$0")/../apt_ensure.sh" "prometheus promtool" prometheus
