#!/usr/bin/env bash
# venv_install.sh VENV ARG...: `pip install ARG...` into the virtual environment VENV (made
# with `python -m venv`, so it has pip), done by uv: the pinned uv is pip-installed into VENV
# first, then `uv pip install --python VENV/bin/python ARG...` resolves and installs with the
# same constraint files. uv installs the same packages pip does from the same lock (checked by
# freezing both), in about a sixth of the time: it downloads in parallel. It compiles every
# module to bytecode as it installs (as pip does): where PYTHONDONTWRITEBYTECODE is set, as on
# this machine kind, Python would otherwise compile dagster's and dbt's modules again in every
# process, about 2 s of each dbt command. Used by the Makefile and scripts/superset.
set -euo pipefail
UV_VERSION=0.13.9
venv=$1
shift
if [ "$("$venv/bin/uv" --version 2>/dev/null)" != "uv $UV_VERSION" ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi
exec "$venv/bin/uv" pip install --quiet --compile-bytecode --python "$venv/bin/python" "$@"
