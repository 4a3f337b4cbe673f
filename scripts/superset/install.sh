#!/usr/bin/env bash
# Apache Superset in its own environment, $SUPERSET_VENV (default .venv-superset; the Makefile's
# stamp `make .venv-superset/.installed` runs this once), for tests/e2e/test_bi_superset.py:
# requirements.txt pinned by constraints.txt, then the metadata database each test run starts
# from a copy of, $SUPERSET_VENV/metadata-template.db (migrated, roles synced, user admin/admin).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$(realpath -m "${SUPERSET_VENV:-$here/../../.venv-superset}")"
started=$SECONDS
rm -rf "$venv"
"${PYTHON:-python3}" -m venv "$venv"
"$here/../venv_install.sh" "$venv" -r "$here/requirements.txt" -c "$here/constraints.txt"
export SUPERSET_CONFIG_PATH="$here/superset_config.py"
export GPULEDGER_SUPERSET_DB="$venv/metadata-template.db"
export SUPERSET_HOME="$venv/superset-home"
superset="$venv/bin/superset"
{
    "$superset" db upgrade
    "$superset" fab create-admin --username admin --password admin --firstname GPU \
        --lastname Ledger --email admin@localhost
    "$superset" init
} >"$venv/install.log" 2>&1 || { tail -40 "$venv/install.log"; exit 1; }
echo "superset $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("apache-superset"))') installed in $venv in $((SECONDS - started)) s"
