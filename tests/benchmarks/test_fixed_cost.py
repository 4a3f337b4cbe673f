"""The fixed-cost benchmark's row: the median build, in its own section of the results file."""

from __future__ import annotations

from pathlib import Path

from benchmarks.fixed_cost import HEADER, SECTION, Build, append_row


def test_the_row_is_the_median_build_and_joins_its_section_before_the_prose(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.md"
    path.write_text("# gpuledger benchmark\n\n## Rows\n\n| a |\n|---|\n| 1 |\n")
    builds = [
        Build(seconds=30.0, peak_rss_mib=900, dbt_elapsed=16.0, nodes=533, tests=411,
              test_seconds=14.0),
        Build(seconds=24.0, peak_rss_mib=950, dbt_elapsed=14.0, nodes=533, tests=411,
              test_seconds=13.0),
        Build(seconds=26.0, peak_rss_mib=800, dbt_elapsed=15.0, nodes=533, tests=411,
              test_seconds=12.5),
    ]  # fmt: skip
    first = append_row(path, builds, "aaaaaaa", "2 cores")
    cells = [cell.strip() for cell in first.strip("|").split("|")]
    # the median build (26.0 s) with its own dbt figures; the extremes; the highest peak
    assert cells[1:11] == ["aaaaaaa", "3", "26.0", "24.0", "30.0", "15.0", "533", "411",
                           "12.5", "950"]  # fmt: skip
    path.write_text(path.read_text() + "\nThe build is mostly dbt's nodes.\n")
    second = append_row(path, builds[:2], "bbbbbbb", "2 cores")
    lines = path.read_text().splitlines()
    start = lines.index(SECTION)
    assert lines[start + 2] == HEADER
    assert lines[start + 4 : start + 6] == [first, second]
    assert "| 24.0 | 24.0 | 30.0 |" in second  # of two builds, the lower is the median
    assert lines[-1] == "The build is mostly dbt's nodes."
    assert lines[:7] == ["# gpuledger benchmark", "", "## Rows", "", "| a |", "|---|", "| 1 |"]
