#!/usr/bin/env bash
# Stop the loopback Slurm cluster of scripts/slurm/start.sh: SIGTERM to each daemon by the pid
# in its pid file, in the order slurmd, slurmctld, slurmdbd, mariadbd, munged, waiting for each
# to exit (SIGKILL after 60 s). Data (MariaDB, slurmctld state) is kept. Safe to run twice.
set -euo pipefail

if [[ $(id -u) -ne 0 ]]; then
    echo "stop.sh: must run as root" >&2
    exit 1
fi

T0=$EPOCHREALTIME
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%6.1f", b - a }'; }

for entry in slurmd:/run/slurm/slurmd.pid slurmctld:/run/slurm/slurmctld.pid \
    slurmdbd:/run/slurm/slurmdbd.pid mariadbd:/run/mysqld/mysqld.pid \
    munged:/run/munge/munged.pid; do
    name=${entry%%:*} pidfile=${entry#*:}
    start=$EPOCHREALTIME
    if [[ ! -s $pidfile ]] || ! pid=$(cat "$pidfile") || ! kill -0 "$pid" 2>/dev/null; then
        printf 'slurm stop: %-10s not running\n' "$name"
        continue
    fi
    kill -TERM "$pid"
    deadline=$((SECONDS + 60))
    while kill -0 "$pid" 2>/dev/null; do
        if ((SECONDS >= deadline)); then
            echo "slurm stop: $name (pid $pid) ignored SIGTERM for 60 s; sending SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
            deadline=$((SECONDS + 3600))
        fi
        sleep 0.1
    done
    printf 'slurm stop: %-10s %s s (pid %s)\n' "$name" "$(elapsed "$start")" "$pid"
done
printf 'slurm stop: %-10s %s s\n' total "$(elapsed "$T0")"
