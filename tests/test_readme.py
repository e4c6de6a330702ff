"""The README's tour runs as written and prints the seed's numbers."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def tour_code() -> str:
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has no python block"
    return blocks[0]


def test_readme_starts_with_the_two_commands():
    head = README.read_text().split("## ")[0]
    assert head.index("make demo") < head.index("make test")


def test_tour_runs_and_prints_the_decisions():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tour_code(), str(README), "exec"), {})
    text = out.getvalue()
    assert "['apple']" in text and "['orange']" in text
    assert "Overall" in text and "Reject (%)" in text
    assert "w0 (intercept_)" in text
    assert len(tour_code().strip().splitlines()) <= 22
