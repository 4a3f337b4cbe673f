#!/usr/bin/env bash
# validate.sh FILE [JUNIT_XML]: check a FOCUS export with the FinOps Foundation's focus-validator
# 1.0.0 (FOCUS 1.0 rules) from .venv-focus (`make .venv-focus/.installed`), less the checks
# overrides-1.0.yaml names. Prints the validator's report and its counts, writes its JUnit XML
# to JUNIT_XML when given, and exits 1 when a check failed or errored (the validator itself
# always exits 0).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${FOCUS_VENV:-$here/../../.venv-focus}"
file="$(realpath "$1")"
xml="$(realpath -m "${2:-$(mktemp -d)/focus-validator.xml}")"
run=("$venv/bin/focus-validator" --data-file "$file" --validate-version 1.0
    --override-file "$here/overrides-1.0.yaml")
# 1.0.0 opens its ISO 4217 list at the relative path focus_validator/utils/currency_codes.csv
cd "$("$venv/bin/python" -c 'import focus_validator, pathlib; print(pathlib.Path(focus_validator.__file__).parents[1])')"
"${run[@]}"
"${run[@]}" --output-type unittest --output-destination "$xml"
"$venv/bin/python" - "$xml" "$file" <<'PY'
import sys
import xml.etree.ElementTree as ET

suites = ET.parse(sys.argv[1]).getroot()
counts = {key: int(suites.get(key)) for key in ("tests", "failures", "errors", "skipped")}
passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
print(
    f"focus-validator 1.0.0 on {sys.argv[2]}: {counts['tests']} checks, {passed} passed, "
    f"{counts['failures']} failed, {counts['errors']} errored, {counts['skipped']} skipped"
)
sys.exit(1 if counts["failures"] or counts["errors"] else 0)
PY
