"""`gpuledger ingest prometheus --live` authenticates with a bearer token or basic auth (from a
file, the environment or the URL) against a real HTTP server on loopback that checks the
Authorization header, and the credentials appear in no output and no file under the home:
messages, batches and state name the URL without them, so the batch id does not depend on
them either."""

from __future__ import annotations

import base64
import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors.prometheus.auth import PASSWORD_ENV, TOKEN_ENV, USER_ENV
from extractors.rawstore import batch_files
from gpuledger.cli import main
from tests.conftest import CliResult, run_cli

TOKEN = "tok-9f3c1e7d2b"
USER, PASSWORD = "alice", "s3cr@t:pw"
WINDOW = ("--start", "2026-11-01T00:00:00Z", "--end", "2026-11-01T00:05:00Z", "--step", "60s")
QUERY = ("--query", "DCGM_FI_DEV_FB_USED")


class Prometheus(ThreadingHTTPServer):
    """A Prometheus HTTP API on loopback that answers only requests with `expected` as their
    Authorization header (401 otherwise), and records the headers it was sent."""

    def __init__(self, expected: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.expected = expected
        self.authorizations: list[str | None] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Prometheus

    def _answer(self, status: int, document: object) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _authorized(self) -> bool:
        header = self.headers.get("Authorization")
        self.server.authorizations.append(header)
        if header == self.server.expected:
            return True
        self._answer(401, {"status": "error", "errorType": "unauthorized", "error": "denied"})
        return False

    def do_GET(self) -> None:
        if self._authorized():
            self._answer(200, {"status": "success", "data": {"version": "3.1.0"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        if not self._authorized():
            return
        start, end, step = (int(form[name][0]) for name in ("start", "end", "step"))
        series = {
            "metric": {"__name__": "DCGM_FI_DEV_FB_USED", "UUID": "GPU-1", "Hostname": "h"},
            "values": [[time, "1024"] for time in range(start, end + 1, step)],
        }
        data = {"resultType": "matrix", "result": [series]}
        self._answer(200, {"status": "success", "data": data})

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads what the server recorded instead."""


def _serve(expected: str) -> Iterator[Prometheus]:
    server = Prometheus(expected)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.fixture
def bearer_server() -> Iterator[Prometheus]:
    yield from _serve(f"Bearer {TOKEN}")


@pytest.fixture
def basic_server() -> Iterator[Prometheus]:
    yield from _serve(_basic(USER, PASSWORD))


def _live(home: Path, url: str, *extra: str) -> CliResult:
    return run_cli(
        home, None, "ingest", "prometheus", "--live", "--url", url, *WINDOW, *QUERY, *extra
    )


def _assert_nowhere(home: Path, result: CliResult, *secrets: str) -> None:
    """None of `secrets` (nor the basic-auth header text) in the output or under the home."""
    needles = [s.encode() for s in secrets] + [_basic(USER, PASSWORD).split()[1].encode()]
    output = (result.stdout + result.stderr).encode()
    for needle in needles:
        assert needle not in output
    files = [path for path in home.rglob("*") if path.is_file()]
    assert files
    for path in files:
        content = path.read_bytes()
        if path.suffix == ".parquet":  # compressed: look at the values too
            content += repr(pq.read_table(path).to_pylist()).encode()
        for needle in needles:
            assert needle not in content, path


def _refused(home: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """What the argument parser says refusing a live ingest (exit code 2)."""
    argv = ["--home", str(home), "ingest", "prometheus", "--live", "--url", "http://127.0.0.1:9"]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, *WINDOW, *extra])
    assert exit_info.value.code == 2
    return capsys.readouterr().err


def _batch_ids(home: Path) -> list[str]:
    return sorted(
        pq.read_table(p).to_pylist()[0]["batch_id"] for p in batch_files(home / "raw" / "batches")
    )


def test_bearer_token_file_authenticates_and_is_never_printed_or_stored(
    tmp_path: Path, home: Path, bearer_server: Prometheus
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    result = _live(home, bearer_server.url, "--bearer-token-file", str(token_file))
    assert result.exit_code == 0, result.stderr
    assert "landed 6" in result.stdout and bearer_server.url in result.stdout
    assert set(bearer_server.authorizations) == {f"Bearer {TOKEN}"}
    _assert_nowhere(home, result, TOKEN)


def test_bearer_token_from_the_environment(
    home: Path, bearer_server: Prometheus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    result = _live(home, bearer_server.url)
    assert result.exit_code == 0, result.stderr
    assert set(bearer_server.authorizations) == {f"Bearer {TOKEN}"}
    _assert_nowhere(home, result, TOKEN)


def test_basic_auth_file_authenticates(
    tmp_path: Path, home: Path, basic_server: Prometheus
) -> None:
    auth_file = tmp_path / "basic"
    auth_file.write_text(f"{USER}:{PASSWORD}\n")
    result = _live(home, basic_server.url, "--basic-auth-file", str(auth_file))
    assert result.exit_code == 0, result.stderr
    assert set(basic_server.authorizations) == {_basic(USER, PASSWORD)}
    _assert_nowhere(home, result, PASSWORD)


def test_basic_auth_from_the_environment(
    home: Path, basic_server: Prometheus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(USER_ENV, USER)
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    result = _live(home, basic_server.url)
    assert result.exit_code == 0, result.stderr
    assert set(basic_server.authorizations) == {_basic(USER, PASSWORD)}
    _assert_nowhere(home, result, PASSWORD)


def test_credentials_in_the_url_are_taken_out_and_sent_as_basic_auth(
    tmp_path: Path, basic_server: Prometheus
) -> None:
    host = basic_server.url.removeprefix("http://")
    embedded = f"http://{USER}:{urllib.parse.quote(PASSWORD, safe='')}@{host}"
    in_url = _live(tmp_path / "a", embedded)
    assert in_url.exit_code == 0, in_url.stderr
    assert set(basic_server.authorizations) == {_basic(USER, PASSWORD)}
    assert basic_server.url in in_url.stdout
    _assert_nowhere(tmp_path / "a", in_url, PASSWORD, f"{USER}:", urllib.parse.quote(PASSWORD))
    # the same evidence fetched with the credentials from the environment: the same batches
    auth_file = tmp_path / "basic"
    auth_file.write_text(f"{USER}:{PASSWORD}")
    from_file = _live(tmp_path / "b", basic_server.url, "--basic-auth-file", str(auth_file))
    assert from_file.exit_code == 0, from_file.stderr
    assert _batch_ids(tmp_path / "a") == _batch_ids(tmp_path / "b") != []


def test_refused_credentials_name_the_server_not_the_secret(
    tmp_path: Path, home: Path, bearer_server: Prometheus
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("wrong-token-77\n")
    result = _live(home, bearer_server.url, "--bearer-token-file", str(token_file))
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"gpuledger: {bearer_server.url}: HTTP 401 for '"
    ) and result.stderr.rstrip().endswith("(the server refused the credentials given)")
    assert "wrong-token-77" not in result.stdout + result.stderr
    assert not (home / "state" / "prometheus").exists()


def test_missing_credentials_say_how_to_give_them(home: Path, bearer_server: Prometheus) -> None:
    result = _live(home, bearer_server.url)
    assert result.exit_code == 1
    assert "HTTP 401" in result.stderr and "--bearer-token-file, --basic-auth-file" in result.stderr
    assert bearer_server.authorizations[0] is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is empty"),
        ("alice-without-a-colon\n", "line 1 is not user:password"),
    ],
)
def test_a_bad_basic_auth_file_is_a_usage_error_without_its_content(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    auth_file = tmp_path / "basic"
    auth_file.write_text(content)
    err = _refused(home, capsys, "--basic-auth-file", str(auth_file))
    assert f"--basic-auth-file {auth_file}: {message}" in err
    assert "alice-without" not in err


def test_basic_auth_needs_both_variables(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(USER_ENV, USER)
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    assert f"{PASSWORD_ENV} is not set (basic auth needs both)" in _refused(home, capsys)


def test_token_and_basic_auth_files_are_exclusive(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "s"
    secret.write_text("x:y")
    both = ("--bearer-token-file", str(secret), "--basic-auth-file", str(secret))
    assert "not allowed with argument" in _refused(home, capsys, *both)
