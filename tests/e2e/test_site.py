"""The showback site over the demo month (`gpuledger site`): every figure on every page equals
the served marts, the pages load nothing from anywhere, a tenant's page holds nothing of
another tenant, and headless Chromium renders the fleet page and a tenant's page.

Chromium comes from scripts/chromium/install.sh (Debian chromium, as root). The screenshots go
to the test's tmp folder and are copied to $GPULEDGER_SITE_SHOTS (default /tmp) as
h11site-fleet.png and h11site-tenant-<id>.png, to be looked at.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import duckdb
import pytest

from gpuledger.core.home import served_path
from gpuledger.site import measures
from tests.conftest import HEADLESS_CHROMIUM, REPO, run_cli
from tests.e2e import png
from tests.e2e.sitepages import Figure, Page, expected, numbers, read_page

PERIOD = "2026-10"
TENANTS = ("atlas", "boreal", "cirrus", "delta", "ember", "__unattributed__", "__platform__")
IDENTITY = {"close_id", "close_version", "approver", "closed_at", "lines_sha256"}
SHOT_WIDTH = 1300
SHOT_HEIGHTS = {"fleet": 6000, "tenant": 4600}
CHROMIUM_FLAGS = (*HEADLESS_CHROMIUM, "--hide-scrollbars")


@pytest.fixture(scope="module")
def site(demo_home: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    home, _ = demo_home
    output = tmp_path_factory.mktemp("site") / "showback"
    result = run_cli(home, None, "site", "--period", PERIOD, "--output", str(output))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [str(output / "index.html")] + [
        str(output / "tenants" / f"{t}.html") for t in TENANTS
    ]
    return output


def _pages(site: Path) -> dict[str, Page]:
    pages = {"index": read_page((site / "index.html").read_text())}
    for tenant in TENANTS:
        pages[tenant] = read_page((site / "tenants" / f"{tenant}.html").read_text())
    return pages


def test_every_figure_on_every_page_equals_the_served_marts(
    demo_home: tuple[Path, str], site: Path
) -> None:
    home, _ = demo_home
    pages = _pages(site)
    compared = 0
    with duckdb.connect(str(served_path(home)), read_only=True) as con:
        for name, page in pages.items():
            assert len(page.figures) > 50, name
            wrong = [
                (f.metric, f.scope, f.value, want)
                for f in page.figures
                if f.value != (want := expected(con, f))
            ]
            assert wrong == [], f"{name}: {wrong[:5]}"
            compared += len(page.figures)
    print(f"\n{compared} figures on {len(pages)} pages equal the served marts")
    fleet: dict[tuple, Figure] = {}  # the first table or card figure of each metric and scope
    for f in pages["index"].figures:
        if f.tag != "rect":
            fleet.setdefault((f.metric, tuple(sorted(f.scope.items()))), f)
    # the case: tenants and the central platform line totalled apart, and both shown
    key = ("total_charge", (("party", "tenants"), ("period", PERIOD)))
    assert fleet[key].value == "125201.64" and fleet[key].text == "125,201.64"
    key = ("total_charge", (("party", "platform"), ("period", PERIOD)))
    assert fleet[key].value == "123965.81"
    assert fleet[("total_charge", (("period", PERIOD),))].value == "250250.00"
    assert fleet[("close_id", (("period", PERIOD),))].text == "close-2026-10-v1-14c4f85eb6"
    assert fleet[("cost_center", (("tenant", "atlas"),))].text == "CC-4100"
    # the trend holds the periods served up to this one
    trend = {f.scope["period"] for f in pages["index"].figures if f.metric == "total_charge"}
    assert trend == {"2026-09", PERIOD}


def test_pages_load_nothing_from_anywhere(site: Path) -> None:
    files = sorted(site.rglob("*"))
    assert [p.relative_to(site).as_posix() for p in files if p.is_file()] == [
        "index.html",
        *(f"tenants/{t}.html" for t in sorted(TENANTS)),
    ]
    for path in files:
        if path.is_dir():
            continue
        text = path.read_text()
        assert not re.search(r"https?:|//[a-z]", text, re.IGNORECASE), path
        for loader in ("<script", "<link", "<img", "<iframe", "url(", "@import"):
            assert loader not in text, (path, loader)
        for href in read_page(text).hrefs:
            assert (path.parent / href).is_file(), (path, href)


def _words(tenant_id: str, name: str) -> list[re.Pattern]:
    return [
        re.compile(rf"(?<![\w-]){re.escape(tenant_id)}(?![\w-])"),
        re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])"),
    ]


def test_a_tenant_page_holds_nothing_of_another_tenant(site: Path) -> None:
    pages = _pages(site)
    names = {f.scope["tenant"]: f.text for f in pages["index"].figures if f.metric == "tenant_name"}
    assert set(names) == set(TENANTS) and names["__platform__"] == "Central platform"
    # the fleet's totals are figures of no single tenant
    fleet = numbers(
        f for f in pages["index"].figures if "tenant" not in f.scope and f.metric not in IDENTITY
    )
    for tenant in TENANTS:
        page = pages[tenant]
        html = (site / "tenants" / f"{tenant}.html").read_text()
        for figure in page.figures:
            if figure.metric in IDENTITY:
                assert figure.scope == {"period": PERIOD}, figure
            else:
                assert figure.scope.get("tenant") == tenant, figure
        own, shown = numbers(page.figures), page.numbers()
        for other in TENANTS:
            if other == tenant:
                continue
            for word in _words(other, names[other]):
                assert not word.search(html), (tenant, word.pattern)
            theirs = numbers(f for f in pages[other].figures if f.metric not in IDENTITY)
            leaked = (theirs - own) & shown
            assert leaked == set(), (tenant, other, sorted(leaked)[:5])
        assert (fleet - own) & shown == set(), (tenant, sorted((fleet - own) & shown)[:5])


def test_the_measures_are_explained_in_the_words_readme_uses(site: Path) -> None:
    readme = " ".join((REPO / "README.md").read_text().replace("`", "").split())
    fleet = (site / "index.html").read_text().replace("&#x27;", "'")
    shown = [
        *measures.LEDGER.values(),
        measures.CONFIDENCE["unattributed_gpu_hours"],
        *(measures.WORK[k] for k in ("cost_per_successful_unit", "cost_per_successful_request")),
        measures.WORK["cost_per_million_tokens"],
    ]
    for label, text in shown:
        assert text in readme, (label, text)
        assert text in fleet, (label, text)
    for label, text in measures.IDLE_CLASSES.items():
        assert text in readme, (label, text)


@pytest.mark.parametrize(
    ("kind", "page"), [("fleet", "index.html"), ("tenant", "tenants/atlas.html")]
)
def test_headless_chromium_renders_the_fleet_and_a_tenant_page(
    site: Path, chromium: str, tmp_path: Path, kind: str, page: str
) -> None:
    shot = tmp_path / f"{kind}.png"
    height = SHOT_HEIGHTS[kind]
    with tempfile.TemporaryDirectory() as profile:
        taken = subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--window-size={SHOT_WIDTH},{height}",
                f"--user-data-dir={profile}",
                f"--screenshot={shot}",
                (site / page).as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    assert taken.returncode == 0, taken.stderr[-2000:]
    data = shot.read_bytes()
    assert png.size(data) == (SHOT_WIDTH, height)
    assert len(data) > 100_000, f"{page} rendered next to nothing"
    # the header, the close and the first chart: many colours, not a blank or error page
    top = png.decode(data, rows=1200)
    assert png.colours(top) > 200, png.colours(top)
    name = "h11site-fleet.png" if kind == "fleet" else "h11site-tenant-atlas.png"
    target = Path(os.environ.get("GPULEDGER_SITE_SHOTS", tempfile.gettempdir())) / name
    shutil.copyfile(shot, target)
    print(f"\n{page}: {len(data):,} bytes, {png.colours(top)} colours in the top rows -> {target}")
