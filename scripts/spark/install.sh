#!/usr/bin/env bash
# Java for the Spark target (pyspark 4.3 runs on Java 17; pyspark itself is a pip dependency,
# the `spark` extra): Debian's headless OpenJDK 17 if no java is on PATH. Idempotent; runs as
# root.
exec "$(dirname "$0")/../apt_ensure.sh" java openjdk-17-jre-headless
