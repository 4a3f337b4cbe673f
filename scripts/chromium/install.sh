#!/usr/bin/env bash
# Install headless Chromium and chromedriver (Debian packages) if missing. Idempotent; runs as
# root. Recommends are skipped; no daemon is started (the UI test runs chromium --headless).
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "chromium already installed: $(chromium --version 2>/dev/null | head -n 1)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "chromium is missing and installing it needs root: apt-get install chromium chromium-driver" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
echo "chromium installed: $(chromium --version 2>/dev/null | head -n 1)"
