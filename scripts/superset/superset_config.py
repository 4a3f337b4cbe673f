"""Superset's settings for the BI test (SUPERSET_CONFIG_PATH): the metadata database in SQLite
at $GPULEDGER_SUPERSET_DB, served on loopback only. The instance lives as long as one test and
keeps no credential (the served copy has none), so its key is fixed here."""

import os

SECRET_KEY = "gpuledger-bi-test-instance-on-loopback"
SQLALCHEMY_DATABASE_URI = "sqlite:///" + os.environ["GPULEDGER_SUPERSET_DB"]
# the test drives the REST API with a JWT from /api/v1/security/login, no browser forms
WTF_CSRF_ENABLED = False
TALISMAN_ENABLED = False
