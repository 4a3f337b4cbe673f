"""extractors.slurm.text: sacct's header lines, delimiters and records whose fields hold a
newline (gcm's `--delimiter='|#'` capture: tests/fixtures/real/external/slurm)."""

from __future__ import annotations

from extractors.slurm.parse import parse_sacct_text
from extractors.slurm.text import field_at, sacct_records
from tests.conftest import FIXTURES

GCM = FIXTURES / "real" / "external" / "slurm" / "gcm_sacct_delim-pipehash_multiline-submitline.txt"


def test_a_field_holding_a_newline_is_rejoined_into_one_record() -> None:
    text = GCM.read_text()
    # a naive split: 5 data lines of 110, 110, 81, 30 and 110 fields
    assert [len(line.split("|#")) for line in text.split("\n")[1:]] == [110, 110, 81, 30, 110]
    records = list(sacct_records(text, None))
    assert [(r.line, r.text.count("|#") + 1) for r in records] == [
        (2, 110),
        (3, 110),
        (4, 110),
        (6, 110),
    ]
    assert "sbatch --job-name job_name || \n " in records[2].text
    assert {r.layout.delimiter for r in records} == {"|#"}


def test_a_short_record_that_nothing_completes_is_rejected_as_short() -> None:
    text = "JobID|Cluster|State\n1|c|COMPLETED\n2|c\n3|c|COMPLETED\n4|c"
    result = parse_sacct_text(text)
    # 2's next line is complete by itself: it continues nothing; 4 ends the file
    assert [(r.line, r.reason) for r in result.rejected] == [
        (3, "expected 3 fields, got 2"),
        (5, "expected 3 fields, got 2"),
    ]
    assert result.records_read == 4


def test_the_field_at_a_place_is_named_as_the_header_spells_it() -> None:
    text = GCM.read_text()
    lines = text.split("\n")
    assert field_at(text, 3, lines[2].index("test_run"), None) == "JobName"
    assert field_at(text, 5, 1, None) == "SubmitLine"  # the continuation of record 201844
    assert field_at(text, 6, lines[5].index("node1083"), None) == "MaxDiskReadNode"
