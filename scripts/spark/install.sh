#!/usr/bin/env bash
# Java for the Spark target (pyspark 4.3 runs on Java 17; pyspark itself is a pip dependency,
# the `spark` extra). Installs Debian's headless OpenJDK 17 if no java is on PATH. Idempotent;
# runs as root.
set -euo pipefail

if command -v java >/dev/null 2>&1; then
    echo "java already installed: $(java -version 2>&1 | head -n 1)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "java is missing and installing it needs root: apt-get install openjdk-17-jre-headless" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null
echo "java installed: $(java -version 2>&1 | head -n 1)"
