#!/usr/bin/env bash
# venv_install.sh VENV ARG...: `pip install ARG...` into the virtual environment VENV (made
# with `python -m venv`, so it has pip), done by uv: the pinned uv is pip-installed into VENV
# first, then `uv pip install --python VENV/bin/python ARG...` resolves and installs with the
# same constraint files. uv installs the same packages pip does from the same lock (checked by
# freezing both), in about a sixth of the time: it downloads in parallel and writes no .pyc up
# front (Python writes them at first import). Used by the Makefile and scripts/superset.
set -euo pipefail
UV_VERSION=0.13.9
venv=$1
shift
if [ "$("$venv/bin/uv" --version 2>/dev/null)" != "uv $UV_VERSION" ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi
exec "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" "$@"
