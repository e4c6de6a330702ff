"""`make bench`'s smoke run: every row of the benchmark runs on tiny data (no timings
asserted; ratios on tiny data mean little)."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


@pytest.mark.slow
def test_quick_benchmark_runs_every_row(tmp_path):
    out = tmp_path / "quick.md"
    run = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    table = out.read_text()
    for model in (
        "GaussianNB",
        "QuadraticDiscriminant",
        "LinearDiscriminant",
        "MultinomialNB",
        "BernoulliNB",
        "Gaussian mixture (EM)",
        "AODE",
        "TAN",
        "KernelNB",
    ):
        assert f"| {model} " in table, model
    assert "ERROR" not in table
    header, *rows = [line for line in table.splitlines() if line.startswith("| ")]
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert {"data MiB", "sklearn MiB", "bayesrule MiB"} <= set(columns)
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    for name in ("data MiB", "sklearn MiB", "bayesrule MiB"):  # measured, not "-"
        assert cells[columns.index(name)].replace(",", "").isdigit(), (name, rows[0])
    assert "Informational" in table  # the semi-naive rows, apart from the compared ones
    assert {"pomegranate s", "vs pomegranate"} <= set(columns)
    # with pomegranate installed its GaussianNB row is timed; without, the header says so
    gnb = [c.strip() for c in rows[0].strip("|").split("|")]
    if "pomegranate: not installed" in table:
        assert gnb[columns.index("pomegranate s")] == "-"
    else:
        assert gnb[columns.index("vs pomegranate")].endswith("x"), rows[0]
