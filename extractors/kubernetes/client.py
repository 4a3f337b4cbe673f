"""Kubernetes evidence into the landing zone: from files, or live from the API server.

File mode lands a `kubectl get ... -o json` List or a watch event stream as one batch.
Live mode (`extractors.kubernetes.live`) lists and watches the API through the official
`kubernetes` client configured here: from a kubeconfig, or an explicit server URL.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.config.config_exception import ConfigException

from extractors.filebatch import SourceFileError, land_file
from extractors.kubernetes.parse import ParseOptions, parse_document
from extractors.kubernetes.records import RAW_TABLES
from extractors.landing import LandingReport

SOURCE = "kubernetes"


class KubernetesLiveError(SourceFileError):
    """The API server cannot be reached or refuses a request (the message names it)."""


def ingest_file(home: Path, path: Path, options: ParseOptions) -> LandingReport:
    """Land a List or watch-event file; its modification time is when it was observed."""
    try:
        observed_at = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).replace(tzinfo=None)
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read: {exc.strerror}") from None
    return land_file(
        home,
        path,
        source=SOURCE,
        parse=lambda text: parse_document(text, options, observed_at),
        row_types=RAW_TABLES,
        options=options.fingerprint(),
    )


@dataclass(frozen=True)
class Connection:
    """A configured API client, the server it talks to and the cluster name it implies."""

    api_client: k8s_client.ApiClient
    server: str
    default_cluster: str


def connect(
    *, server: str | None = None, kubeconfig: Path | None = None, context: str | None = None
) -> Connection:
    """An API client for `server` (plain `Configuration(host=...)`), else for the kubeconfig
    (`kubeconfig`, else $KUBECONFIG or ~/.kube/config) and its `context`."""
    if server is not None:
        configuration = k8s_client.Configuration(host=server.rstrip("/"))
        parsed = urlparse(configuration.host)
        return Connection(
            k8s_client.ApiClient(configuration), configuration.host, parsed.netloc or server
        )
    config_file = str(kubeconfig) if kubeconfig is not None else None
    try:
        contexts, active = k8s_config.list_kube_config_contexts(config_file=config_file)
        chosen = next((c for c in contexts if c["name"] == context), None) if context else active
        if chosen is None:
            raise ConfigException(f"no context {context!r}")
        api_client = k8s_config.new_client_from_config(
            config_file=config_file, context=chosen["name"]
        )
    except (ConfigException, OSError) as exc:
        where = config_file or "the default kubeconfig"
        raise KubernetesLiveError(f"{where}: {exc}") from None
    cluster = chosen.get("context", {}).get("cluster") or chosen["name"]
    return Connection(api_client, api_client.configuration.host, cluster)


def state_name(cluster: str) -> str:
    """A file name for a cluster's watch state (anything but letters, digits, . _ - is `_`)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", cluster) or "_"
