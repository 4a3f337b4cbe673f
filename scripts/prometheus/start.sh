#!/usr/bin/env bash
# Backfill a fresh TSDB from an OpenMetrics file and serve it on loopback.
#
#   scripts/prometheus/start.sh METRICS.om WORKDIR PORT
#
# WORKDIR must not exist or be empty: it receives tsdb/, prometheus.yml (no scrape targets),
# prometheus.log and prometheus.pid. Prints "ready http://127.0.0.1:PORT pid PID" once
# /-/ready answers. Stop with scripts/prometheus/stop.sh WORKDIR.
set -euo pipefail

if [ "$#" -ne 3 ]; then
    echo "usage: $0 METRICS.om WORKDIR PORT" >&2
    exit 2
fi
metrics=$1
workdir=$2
port=$3
if [ -e "$workdir" ] && [ -n "$(ls -A "$workdir")" ]; then
    echo "$workdir is not empty: backfill needs a fresh directory" >&2
    exit 2
fi
mkdir -p "$workdir/tsdb"
# The real binaries, never a shim: $! must be the server's own pid.
prometheus_bin=$(command -v prometheus)
promtool_bin=$(command -v promtool)

# 24 h blocks: the default 2 h blocks take ~7x longer to write (one fsync-ed block each).
"$promtool_bin" tsdb create-blocks-from openmetrics --max-block-duration=24h \
    "$metrics" "$workdir/tsdb" \
    >"$workdir/backfill.log" 2>&1 || {
    cat "$workdir/backfill.log" >&2
    exit 1
}
cat >"$workdir/prometheus.yml" <<'YAML'
global:
  scrape_interval: 1m
scrape_configs: []
YAML

"$prometheus_bin" \
    --config.file="$workdir/prometheus.yml" \
    --storage.tsdb.path="$workdir/tsdb" \
    --storage.tsdb.retention.time=100y \
    --web.listen-address="127.0.0.1:$port" \
    >"$workdir/prometheus.log" 2>&1 &
pid=$!
echo "$pid" >"$workdir/prometheus.pid"

for _ in $(seq 1 600); do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "prometheus exited before it was ready:" >&2
        tail -n 5 "$workdir/prometheus.log" >&2
        exit 1
    fi
    if curl -fsS --max-time 2 "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 \
        && kill -0 "$pid" 2>/dev/null; then
        echo "ready http://127.0.0.1:$port pid $pid"
        exit 0
    fi
    sleep 0.05
done
echo "prometheus not ready after 30 s; stopping pid $pid" >&2
kill -TERM "$pid" 2>/dev/null || true
exit 1
