#!/usr/bin/env bash
# Headless Chromium and chromedriver (Debian packages) if missing; the UI test runs
# chromium --headless. Idempotent; runs as root.
exec "$(dirname "$0")/../apt_ensure.sh" "chromium chromedriver" chromium chromium-driver
