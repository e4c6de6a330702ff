"""The bayesrule command: the demo prints the seed's numbers and writes its figure."""

import subprocess
import sys

import pytest

from bayesrule.cli import main


def test_demo_prints_the_seed_numbers_and_writes_the_png(tmp_path, capsys):
    png = tmp_path / "regions.png"
    assert main(["demo", "-o", str(png)]) == 0
    out = capsys.readouterr().out
    for number in ["6.1364e-05", "3.3501e-05", "2.9236e-07", "3.8004e-05"]:
        assert number in out
    assert "0.6459" in out and "0.3526" in out and "0.0015" in out
    assert "0.6489" in out and "0.9985" in out and "0.7098" in out
    assert "minimum-error decision (largest posterior): apple" in out
    assert "minimum-risk decision: orange" in out
    overall = [line for line in out.splitlines() if line.startswith("Overall")][0]
    assert 96.5 <= float(overall.split()[1]) <= 98.5
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(png.resolve()) in out


def test_module_entry_point_and_help():
    done = subprocess.run(
        [sys.executable, "-m", "bayesrule", "demo", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "example:" in done.stdout and "bayesrule demo" in done.stdout


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_unknown_example_is_refused():
    with pytest.raises(SystemExit):
        main(["demo", "mushrooms"])


def test_unwritable_output_is_an_error_not_a_traceback(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["demo", "-o", str(blocker / "sub" / "out.png")]) == 1
    assert "error" in capsys.readouterr().err
