"""Errors for people: one line on stderr, `bayesrule <command>: error: ...`, exit status 2.

Most run `main()` in-process for speed; two run the real command in a subprocess to
show that no traceback escapes, and --debug shows it.
"""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from bayesrule import GaussianNB
from bayesrule.cli import CLIError, main
from bayesrule.cli import data as cli_data
from bayesrule.datasets import fruit


@pytest.fixture()
def files(tmp_path, monkeypatch):
    """A fruit table, a mixed table, a one-class table, a fitted model; cwd = tmp_path."""
    monkeypatch.chdir(tmp_path)
    data = fruit(15, random_state=0)
    frame = pd.DataFrame(data.data, columns=data.feature_names)
    frame["fruit"] = data.target
    frame.to_csv("fruit.csv", index=False)
    mixed = frame.copy()
    mixed["colour"] = np.where(mixed["color_nm"] > 590, "orange-ish", "red-ish")
    mixed.to_csv("mixed.csv", index=False)
    frame.assign(fruit="apple").to_csv("apples.csv", index=False)
    assert main(["fit", "fruit.csv", "--target", "fruit", "-o", "fruit.model"]) == 0
    return tmp_path


def error_of(capsys, argv, command=None) -> str:
    """Run main(argv): exit status 2 and exactly one line on stderr, which is returned."""
    capsys.readouterr()
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"bayesrule {command or argv[0]}: error: ")
    assert "Traceback" not in captured.err
    return lines[0]


def fit(*args):
    return ["fit", "fruit.csv", "--target", "fruit", "-o", "out.model", *args]


def test_missing_data_file(files, capsys):
    err = error_of(capsys, ["fit", "nothere.csv", "--target", "fruit", "-o", "m.model"])
    assert err == "bayesrule fit: error: no such file: nothere.csv"
    err = error_of(capsys, ["predict", "fruit.model", "nothere.csv"])
    assert err == "bayesrule predict: error: no such file: nothere.csv"


def test_missing_model_file(files, capsys):
    err = error_of(capsys, ["inspect", "nothere.model"])
    assert err == "bayesrule inspect: error: no such file: nothere.model"


def test_misspelt_target_suggests_the_nearest_column(files, capsys):
    err = error_of(capsys, ["fit", "fruit.csv", "--target", "friut", "-o", "m.model"])
    assert err.endswith("target column 'friut' is not in fruit.csv; did you mean 'fruit'?")


def test_misspelt_feature_suggests_the_nearest_column(files, capsys):
    err = error_of(capsys, fit("--features", "weight_g,colour_nm"))
    assert err.endswith("feature column 'colour_nm' is not in fruit.csv; did you mean 'color_nm'?")


def test_unknown_column_lists_the_columns(files, capsys):
    err = error_of(capsys, fit("--features", "zzz"))
    assert err.endswith(
        "feature column 'zzz' is not in fruit.csv; the columns are: weight_g, color_nm, fruit"
    )


def test_missing_feature_column_at_predict(files, capsys):
    pd.read_csv("fruit.csv").rename(columns={"weight_g": "weight"}).to_csv("new.csv", index=False)
    err = error_of(capsys, ["predict", "fruit.model", "new.csv"])
    assert err.endswith("feature column 'weight_g' is not in new.csv; did you mean 'weight'?")


def test_unknown_model_lists_the_known_ones(files, capsys):
    err = error_of(capsys, fit("--model", "svm"))
    assert err.endswith(
        "unknown model 'svm'; the models are: qda, lda, gaussian-nb, nearest-mean, gaussian, "
        "mixture, kernel-nb, bernoulli-nb, multinomial-nb, complement-nb, poisson-nb, "
        "categorical-nb, mixed-nb, aode, ande, waode, tan, kdb, spode, skdb, eskdb, hnb, search"
    )
    assert "did you mean 'qda'?" in error_of(capsys, fit("--model", "qdaa"))


def test_target_with_one_class(files, capsys):
    err = error_of(capsys, ["fit", "apples.csv", "--target", "fruit", "-o", "m.model"])
    assert err.endswith(
        "target column 'fruit' of apples.csv has one class ('apple'); a classifier needs at "
        "least 2 classes"
    )
    err = error_of(capsys, ["compare", "apples.csv", "--target", "fruit"])
    assert "has one class ('apple')" in err


@pytest.mark.parametrize("model", ["qda", "lda", "gaussian-nb", "nearest-mean", "mixture"])
def test_non_numeric_data_for_a_gaussian_model_suggests_mixed_nb(files, capsys, model):
    argv = ["fit", "mixed.csv", "--target", "fruit", "--model", model, "-o", "m.model"]
    err = error_of(capsys, argv)
    assert f"column 'colour' is not numeric (values like 'red-ish'), and {model} needs " in err
    assert "use --model mixed-nb" in err
    # the suggestion works, and is the default for such a table
    assert main(["fit", "mixed.csv", "--target", "fruit", "-o", "m.model"]) == 0
    assert capsys.readouterr().out.startswith("Fitted mixed-nb (MixedNB) on 45 rows")


def test_missing_values_are_taken_by_the_gaussian_models(files, capsys):
    # every Gaussian model fills a missing value in by EM at fit and scores a row by its
    # observed coordinates (before issue 18 these refused NaN with an error)
    frame = pd.read_csv("fruit.csv")
    frame.loc[3, "weight_g"] = np.nan
    frame.to_csv("holes.csv", index=False)
    for name in ("qda", "lda", "gaussian"):
        assert main(["fit", "holes.csv", "--target", "fruit", "--model", name, "-o", name]) == 0
        assert main(["predict", name, "holes.csv", "-o", f"{name}.csv"]) == 0
        assert pd.read_csv(f"{name}.csv")["decision"].notna().all()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("apple:0.5", "--priors 'apple:0.5' is not understood; give 'empirical', 'uniform' or"),
        ("apple=0.5,orange=0.5", "--priors gives no probability for the classes grapefruit"),
        ("apple=0.5,orange=0.3,grapefruit=0.1", "sums to 0.9"),
        ("apple=0.5,orange=0.5,banana=0", "--priors names 'banana', which is not a class; the "),
        ("apple=half,orange=0.5,grapefruit=0", "--priors: 'half' (for 'apple') is not a number"),
        ("apple=-0.5,orange=1.5,grapefruit=0", "the probability of 'apple' must be >= 0"),
    ],
)
def test_bad_priors_spec(files, capsys, spec, message):
    assert message in error_of(capsys, fit("--priors", spec))


LOSS_HEADER = "action,apple,orange,grapefruit\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (LOSS_HEADER + "apple,0,2,3\norange,1,0,2\n", "has no row for deciding grapefruit"),
        ("action,apple,orange\napple,0,1\norange,1,0\n", "has no column for the classes grape"),
        (LOSS_HEADER + "apple,0,2,x\norange,1,0,2\ngrapefruit,1,1,0\n", "is not a number"),
        (LOSS_HEADER + "apple,0,2,3\norange,1,0\ngrapefruit,1,1,0\n", "has 2 values for 3"),
        (LOSS_HEADER + "apple,0,-2,3\norange,1,0,2\ngrapefruit,1,1,0\n", "negative or infin"),
        (
            "action,apple,pear,grapefruit\napple,0,1,1\norange,1,0,1\ngrapefruit,1,1,0\n",
            "names 'pear', which is not a class",
        ),
        ("", "needs a header row of classes and a row per action"),
        (
            LOSS_HEADER + "apple,0,2,3\norange,1,0,2\ngrapefruit,1,1,0\nskip,1,1,1\nwait,1,1,1\n",
            "has rows ['skip', 'wait'] that are not classes; one other row",
        ),
    ],
)
def test_bad_loss_file(files, capsys, text, message):
    with open("loss.csv", "w") as f:
        f.write(text)
    err = error_of(capsys, fit("--loss", "loss.csv"))
    assert err.startswith("bayesrule fit: error: loss file loss.csv")
    assert message in err


def test_loss_file_missing_and_conflicting_reject(files, capsys):
    assert error_of(capsys, fit("--loss", "no.csv")).endswith("no such file: no.csv")
    with open("loss.csv", "w") as f:
        f.write(LOSS_HEADER + "apple,0,2,3\norange,1,0,2\ngrapefruit,1,1,0\nreject,.2,.2,.2\n")
    err = error_of(capsys, fit("--loss", "loss.csv", "--reject-cost", "0.1"))
    assert err.endswith("already has a reject row ('reject'); leave out --reject-cost")
    assert error_of(capsys, fit("--reject-cost", "-1")).endswith("must be a number >= 0, got -1.0")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda raw: b"not a model at all", "it is not a zip/npz container"),
        (lambda raw: raw[: len(raw) // 2], "is not a valid bayesrule model file"),
        (lambda raw: raw[:300] + bytes([raw[300] ^ 1]) + raw[301:], "is not a valid bayesrule"),
        (lambda raw: b"\x80\x04K\x01.", "it looks like a Python pickle"),
    ],
)
def test_corrupted_model_file(files, capsys, damage, message):
    raw = (files / "fruit.model").read_bytes()
    (files / "bad.model").write_bytes(damage(raw))
    for argv in (["predict", "bad.model", "fruit.csv"], ["inspect", "bad.model"]):
        err = error_of(capsys, argv)
        assert err.startswith(f"bayesrule {argv[0]}: error: bad.model ")
        assert message in err


def test_evaluate_with_labels_the_model_does_not_know(files, capsys):
    pd.read_csv("fruit.csv").replace("apple", "pear").to_csv("pears.csv", index=False)
    err = error_of(capsys, ["evaluate", "fruit.model", "pears.csv"])
    assert err.endswith(
        "target column 'fruit' of pears.csv has labels the model does not know: pear (its "
        "classes: apple, grapefruit, orange)"
    )


def test_usage_errors_are_one_line_too(files, capsys):
    err = error_of(capsys, ["fit", "fruit.csv"])
    assert err == (
        "bayesrule fit: error: the following arguments are required: --target, -o/--output "
        "(see 'bayesrule fit --help')"
    )
    err = error_of(capsys, ["plot", "fruit.model", "fruit.csv", "--kind", "map", "-o", "x.png"])
    assert "argument --kind: invalid choice: 'map'" in err
    argv = ["compare", "fruit.csv", "--target", "fruit", "--cv", "1"]
    assert "--cv must be at least 2" in error_of(capsys, argv)
    assert "use --cv 15 or more data" in error_of(
        capsys, ["compare", "fruit.csv", "--target", "fruit", "--cv", "20"]
    )


def test_plot_errors(files, capsys):
    err = error_of(capsys, ["plot", "fruit.model", "fruit.csv", "--kind", "bic", "-o", "b.png"])
    assert "kind 'bic' draws Gaussian mixture models, and this model is a QuadraticDisc" in err
    err = error_of(
        capsys,
        ["plot", "fruit.model", "fruit.csv", "--features", "weight_g,colr_nm", "-o", "b.png"],
    )
    assert err.endswith("'colr_nm' is not a feature of the model; did you mean 'color_nm'?")
    err = error_of(capsys, ["plot", "fruit.model", "fruit.csv", "--size", "big", "-o", "b.png"])
    assert err.endswith("--size must be WIDTHxHEIGHT in inches, e.g. 8x6, got 'big'")


def test_option_for_another_model(files, capsys):
    err = error_of(capsys, fit("--components", "3"))
    assert err.endswith("--components and --max-components apply to --model mixture only")
    err = error_of(capsys, fit("--model", "mixture", "--components", "many"))
    assert err.endswith("--components must be a positive integer or 'bic', got 'many'")
    err = error_of(capsys, fit("--text-column", "fruit", "--model", "qda"))
    assert "--text-column gives word counts, which qda cannot take; use --model bernoulli-nb" in err


def test_parquet_without_an_engine_and_without_pandas(files, capsys, monkeypatch):
    def no_engine(path, **kwargs):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow'")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    (files / "data.parquet").write_bytes(b"PAR1")
    err = error_of(capsys, ["fit", "data.parquet", "--target", "fruit", "-o", "m"])
    assert err.endswith(
        "reading the Parquet file data.parquet needs pyarrow (or fastparquet), which is not "
        "installed; install it with: pip install pyarrow, or save the data as CSV"
    )
    monkeypatch.setitem(sys.modules, "pandas", None)
    err = error_of(capsys, ["fit", "fruit.csv", "--target", "fruit", "-o", "m"])
    assert err.endswith("install it with: pip install 'bayesrule[cli]'")


def test_debug_shows_the_exception(files, capsys):
    with pytest.raises(CLIError, match="did you mean 'fruit'"):
        main(["--debug", "fit", "fruit.csv", "--target", "friut", "-o", "m"])
    with pytest.raises(CLIError, match="did you mean 'fruit'"):
        main(["fit", "fruit.csv", "--target", "friut", "-o", "m", "--debug"])
    with pytest.raises(CLIError, match="no such file: nothere.model"):
        main(["--debug", "inspect", "nothere.model"])


def run_command(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "bayesrule", *args], capture_output=True, text=True, cwd=cwd
    )


def test_no_traceback_from_the_real_command_and_debug_shows_it(files):
    (files / "bad.model").write_bytes((files / "fruit.model").read_bytes()[:-40])
    done = run_command("predict", "bad.model", "fruit.csv", cwd=files)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(
        "bayesrule predict: error: bad.model is not a valid bayesrule model file: "
    )
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    done = run_command("--debug", "fit", "fruit.csv", "--target", "frut", "-o", "m", cwd=files)
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert done.stderr.rstrip().endswith(
        "CLIError: target column 'frut' is not in fruit.csv; did you mean 'fruit'?"
    )


# --------------------------------------------------------------------------- input, progress
def test_big_csv_files_are_read_in_chunks(files, monkeypatch):
    whole = cli_data.read_table("fruit.csv")
    monkeypatch.setattr(cli_data, "CHUNK_BYTES", 0)
    monkeypatch.setattr(cli_data, "CHUNK_ROWS", 7)
    chunks = []
    real = pd.read_csv

    def spy(*args, **kwargs):
        chunks.append(kwargs.get("chunksize"))
        return real(*args, **kwargs)

    monkeypatch.setattr(pd, "read_csv", spy)
    tty = TTY()
    monkeypatch.setattr(sys, "stderr", tty)
    again = cli_data.read_table("fruit.csv")
    assert chunks == [7]
    pd.testing.assert_frame_equal(again, whole)
    assert "reading fruit.csv (0 MB): rows 45" in tty.getvalue()
    assert tty.getvalue().endswith("\r")  # the bar erases itself


def test_parquet_files_are_read_by_extension(files, monkeypatch):
    frame = pd.read_csv("fruit.csv")
    seen = []
    monkeypatch.setattr(pd, "read_parquet", lambda path, **kw: seen.append(path) or frame)
    (files / "f.parquet").write_bytes(b"PAR1")
    assert main(["fit", "f.parquet", "--target", "fruit", "-o", "p.model"]) == 0
    assert [p.name for p in seen] == ["f.parquet"]


class TTY(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(files, capsys, monkeypatch):
    argv = ["compare", "fruit.csv", "--target", "fruit", "--cv", "3", "--models", "lda,qda"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""  # piped (captured): quiet
    tty = TTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(argv) == 0
    drawn = tty.getvalue()
    assert "\rcompare [" in drawn and "qda: fold 3/3" in drawn
    assert "compare [####################]   8/8" in drawn  # 2 models x (3 folds + BIC)


def test_inspect_and_predict_a_model_saved_from_python(files, capsys):
    from bayesrule.io import save

    frame = pd.read_csv("fruit.csv")
    nb = GaussianNB().fit(frame[["weight_g", "color_nm"]].to_numpy(), frame["fruit"].to_numpy())
    save(nb, "api.model")
    assert main(["inspect", "api.model"]) == 0
    out = capsys.readouterr().out
    assert "Model file api.model: gaussian-nb (bayesrule.estimators.gaussian.GaussianNB)" in out
    assert "var_smoothing = 1e-09" in out
    assert main(["predict", "api.model", "fruit.csv"]) == 0  # the first two columns
    decisions = capsys.readouterr().out.splitlines()
    assert (
        decisions[0] == "decision"
        and decisions[1:] == nb.predict(frame[["weight_g", "color_nm"]].to_numpy()).tolist()
    )
