"""Credentials for a live Prometheus: a bearer token or basic auth, read from a file or the
environment, or embedded in the URL (taken out of it).

The credentials only ever become the request's Authorization header. Every message, batch
(file, options, manifest) and state file names the server by `clean_url`, the URL without
them, so no output or file under the home holds them and no batch id or state key depends on
them. The header is not forwarded on a redirect.
"""

from __future__ import annotations

import base64
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

TOKEN_ENV = "GPULEDGER_PROMETHEUS_TOKEN"
USER_ENV = "GPULEDGER_PROMETHEUS_USER"
PASSWORD_ENV = "GPULEDGER_PROMETHEUS_PASSWORD"


class CredentialsError(ValueError):
    """The credentials given cannot be used; the message names where they came from, never
    what they hold."""


@dataclass(frozen=True)
class Credentials:
    """The Authorization header of every request, and where it came from (for messages)."""

    source: str
    authorization: str = field(repr=False)


def clean_url(url: str) -> str:
    """`url` without the `user:password@` of its authority (the rest unchanged)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _basic(user: str, password: str, source: str) -> Credentials:
    pair = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return Credentials(source=source, authorization=f"Basic {pair}")


def _read_secret(path: Path, what: str) -> str:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise CredentialsError(f"{what} {path}: cannot read: {reason}") from None
    if not text:
        raise CredentialsError(f"{what} {path}: is empty")
    return text


def resolve_credentials(
    url: str,
    *,
    bearer_token_file: Path | None = None,
    basic_auth_file: Path | None = None,
    environ: Mapping[str, str],
) -> Credentials | None:
    """The credentials to send: --bearer-token-file, else --basic-auth-file (`user:password`
    on its first line), else GPULEDGER_PROMETHEUS_TOKEN, else GPULEDGER_PROMETHEUS_USER and
    _PASSWORD, else the URL's `user:password@`; None when there are none. The two files
    given together are refused rather than one silently chosen."""
    parts = urllib.parse.urlsplit(url)
    found: list[Credentials] = []
    if bearer_token_file is not None:
        token = _read_secret(bearer_token_file, "--bearer-token-file")
        found.append(Credentials(f"--bearer-token-file {bearer_token_file}", f"Bearer {token}"))
    if basic_auth_file is not None:
        first = _read_secret(basic_auth_file, "--basic-auth-file").splitlines()[0]
        user, colon, password = first.partition(":")
        if not colon or not user:
            raise CredentialsError(
                f"--basic-auth-file {basic_auth_file}: line 1 is not user:password"
            )
        found.append(_basic(user, password, f"--basic-auth-file {basic_auth_file}"))
    if not found and environ.get(TOKEN_ENV):
        found.append(Credentials(TOKEN_ENV, f"Bearer {environ[TOKEN_ENV].strip()}"))
    if not found and (environ.get(USER_ENV) or environ.get(PASSWORD_ENV)):
        missing = [name for name in (USER_ENV, PASSWORD_ENV) if not environ.get(name)]
        if missing:
            raise CredentialsError(f"{missing[0]} is not set (basic auth needs both)")
        found.append(_basic(environ[USER_ENV], environ[PASSWORD_ENV], f"{USER_ENV}/_PASSWORD"))
    if not found and parts.username is not None:
        user = urllib.parse.unquote(parts.username)
        password = urllib.parse.unquote(parts.password or "")
        found.append(_basic(user, password, "the --url's user:password"))
    if len(found) > 1:
        raise CredentialsError(
            f"both {found[0].source} and {found[1].source} give credentials: use one"
        )
    return found[0] if found else None
