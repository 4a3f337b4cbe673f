#!/usr/bin/env bash
# Stop the Prometheus that start.sh started in WORKDIR: TERM by its recorded pid, then wait.
#
#   scripts/prometheus/stop.sh WORKDIR
set -euo pipefail

if [ "$#" -ne 1 ]; then
    echo "usage: $0 WORKDIR" >&2
    exit 2
fi
pidfile=$1/prometheus.pid
[ -f "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
if kill -TERM "$pid" 2>/dev/null; then
    for _ in $(seq 1 200); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "prometheus pid $pid did not stop after 10 s of TERM; sending KILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
fi
rm -f "$pidfile"
