"""The bayesrule command in-process: demos, help with examples, options of every command."""

import json
import subprocess
import sys

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from bayesrule import LossMatrix, QuadraticDiscriminant
from bayesrule.cli import compare as cli_compare
from bayesrule.cli import main
from bayesrule.datasets import fruit


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
    assert "examples:" in done.stdout and "bayesrule demo text" in done.stdout


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_unknown_example_is_refused(capsys):
    assert main(["demo", "mushrooms"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bayesrule demo: error: argument example: invalid choice: 'mushrooms'")
    assert len(err.splitlines()) == 1


def test_unwritable_output_is_an_error_not_a_traceback(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["demo", "-o", str(blocker / "sub" / "out.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bayesrule demo: error: Not a directory:")
    assert len(err.splitlines()) == 1


# --------------------------------------------------------------------------- every command


@pytest.mark.parametrize(
    ("command", "example"),
    [
        ("fit", "bayesrule fit fruit.csv --target fruit -o fruit.model"),
        ("predict", "bayesrule predict fruit.model new.csv --proba --risk -o decisions.csv"),
        ("evaluate", "bayesrule evaluate fruit.model test.csv --json > report.json"),
        ("inspect", "bayesrule inspect fruit.model"),
        ("explain", "bayesrule explain fruit.model new.csv --row 0"),
        ("plot", "bayesrule plot fruit.model fruit.csv --kind regions -o regions.png"),
        ("compare", "bayesrule compare wine.csv --target class --cv 10"),
        ("demo", "bayesrule demo mixture -o modes.png"),
    ],
)
def test_every_command_has_help_with_an_example(capsys, command, example):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: bayesrule {command} ")
    assert "example" in out and example in out


def test_text_demo_prints_the_seed_numbers(capsys):
    assert main(["demo", "text"]) == 0
    out = capsys.readouterr().out
    assert "Vocabulary: 14 words" in out and "Words per class: Sports 11, Not sports 9" in out
    assert "a                  3/25 = 0.1200           2/23 = 0.0870" in out
    assert "product p(x|class), without the prior: Sports 4.61e-05, Not sports 1.43e-05" in out
    assert "posterior P(class|x): Sports 0.8286, Not sports 0.1714" in out
    assert out.rstrip().endswith("decision: Sports")


def test_mixture_demo_chooses_the_true_numbers_of_components(tmp_path, capsys):
    png = tmp_path / "modes.png"
    assert main(["demo", "mixture", "-o", str(png)]) == 0
    out = capsys.readouterr().out
    table = {line.split()[1]: line.split() for line in out.splitlines() if line[:8] == "  class "}
    assert table["1"][-1] == "1" and table["2"][-1] == "2"  # chosen by the lowest BIC
    bic2 = [float(v) for v in table["2"][2:6]]
    assert min(bic2) == bic2[1]
    accuracy = {
        "qda": float(out.split("(QDA):")[1].split("%")[0]),
        "mixture": float(out.split("(BIC's choice):")[1].split("%")[0]),
    }
    assert accuracy["mixture"] > accuracy["qda"] > 90
    assert matplotlib.image.imread(png).shape[:2] == (500, 1200)


@pytest.fixture()
def fruit_csv(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = fruit(30, random_state=3)
    frame = pd.DataFrame(data.data, columns=data.feature_names)
    frame["fruit"] = data.target
    frame.to_csv("fruit.csv", index=False)
    return frame


def test_loss_file_rows_in_any_order_and_a_reject_row(fruit_csv, capsys):
    with open("loss.csv", "w") as f:
        f.write("action,apple,orange,grapefruit\n")
        f.write("grapefruit,1,1,0\napple,0,2,3\nset aside,0.05,0.05,0.05\norange,1,0,2\n")
    assert main(["fit", "fruit.csv", "--target", "fruit", "--loss", "loss.csv", "-o", "m"]) == 0
    capsys.readouterr()
    X, y = fruit_csv[["weight_g", "color_nm"]], fruit_csv["fruit"].to_numpy(dtype=str)
    loss = LossMatrix(
        [[0, 2, 3], [1, 0, 2], [1, 1, 0], [0.05, 0.05, 0.05]],
        classes=["apple", "orange", "grapefruit"],
    )
    api = QuadraticDiscriminant(loss=loss, reject_label="set aside").fit(X, y)
    assert main(["predict", "m", "fruit.csv", "--risk"]) == 0
    pred = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert list(pred.columns) == [
        "decision",
        "R(apple)",
        "R(grapefruit)",
        "R(orange)",
        "R(set aside)",
    ]
    assert pred["decision"].tolist() == api.predict(X).tolist()
    assert "set aside" in pred["decision"].tolist()
    # written with 6 significant digits
    np.testing.assert_allclose(pred.iloc[:, 1:].to_numpy(), api.risk(X), rtol=5e-6)


def test_features_subset_and_uniform_priors(fruit_csv, capsys):
    argv = [
        "fit",
        "fruit.csv",
        "--target",
        "fruit",
        "--features",
        "color_nm",
        "--model",
        "gaussian-nb",
        "--priors",
        "uniform",
        "-o",
        "m",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "1 features (color_nm); target 'fruit', 3 classes." in out
    assert main(["inspect", "m"]) == 0
    out = capsys.readouterr().out
    assert "  feature columns: color_nm" in out and "priors = 'uniform'" in out
    assert "  apple       0.333333\n" in out


def test_numeric_labels_with_reject_cost(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X, y = fruit(20, random_state=0, return_X_y=True)
    codes = {"apple": 1, "orange": 2, "grapefruit": 3}
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(kind=[codes[v] for v in y])
    frame.to_csv("f.csv", index=False)
    assert main(["fit", "f.csv", "--target", "kind", "--reject-cost", "0.2", "-o", "m"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "m", "f.csv", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["classes"] == [1, 2, 3] and got["actions"] == [1, 2, 3, "reject"]


#: the semi-naive models that take a table of two discrete columns (KDB's k=2 needs three)
SEMI_NAIVE_TWO_COLUMNS = ["aode", "ande", "waode", "tan", "spode", "skdb", "eskdb", "hnb", "search"]


def test_compare_a_mixed_table_and_counts():
    words = pd.DataFrame({"n_goal": [0, 3, 1, 0], "n_vote": [2, 0, 0, 4]})
    assert cli_compare.applicable(words) == [
        "qda",
        "lda",
        "gaussian-nb",
        "nearest-mean",
        "gaussian",
        "mixture",
        "kernel-nb",
        "bernoulli-nb",
        "multinomial-nb",
        "complement-nb",
        "poisson-nb",
        "categorical-nb",
        "mixed-nb",
        *SEMI_NAIVE_TWO_COLUMNS,
    ]  # kdb (k=2) needs 3 columns
    wider = words.assign(n_pass=[1, 0, 2, 2])
    assert "kdb" in cli_compare.applicable(wider)
    holes = pd.DataFrame({"x": [0.5, np.nan, 1.5], "y": [1.0, 2.0, 3.5]})
    assert cli_compare.applicable(holes) == [
        "qda",
        "lda",
        "gaussian-nb",
        "nearest-mean",
        "gaussian",
        "mixture",
        "kernel-nb",
        "mixed-nb",
    ]
    assert cli_compare.applicable(None, text=True) == [
        "bernoulli-nb",
        "multinomial-nb",
        "complement-nb",
        "poisson-nb",
    ]
    coded = pd.DataFrame({"colour": ["red", "green"], "size": [1.0, 2.0]})
    assert cli_compare.applicable(coded) == [
        "categorical-nb",
        "mixed-nb",
        *SEMI_NAIVE_TWO_COLUMNS,
    ]
    measured = coded.assign(size=[1.5, 2.25])  # a measurement beside text: no discrete model
    assert cli_compare.applicable(measured) == ["mixed-nb"]


def test_compare_table_on_a_mixed_table(fruit_csv, capsys):
    frame = fruit_csv.assign(shiny=np.where(fruit_csv["weight_g"] > 160, "yes", "no"))
    frame.round().to_csv("mixed.csv", index=False)  # whole grams and millimetres
    assert main(["compare", "mixed.csv", "--target", "fruit", "--cv", "3"]) == 0
    out = capsys.readouterr().out
    assert "Compared 12 models on 90 rows of mixed.csv (3 features, 3 classes)" in out
    rows = [line.split() for line in out.splitlines()[3:15]]
    assert sorted(r[1] for r in rows) == sorted(
        ["categorical-nb", "kdb", "mixed-nb", *SEMI_NAIVE_TWO_COLUMNS]
    )
    assert rows[0][1] == "mixed-nb"  # measurements as Gaussians beat them as categories


def test_plot_passes_names_labels_and_size(fruit_csv, capsys, monkeypatch):
    """The wiring of `plot` to bayesrule.plot.figure.draw, with a stand-in drawing."""
    from bayesrule.cli.plot import pyplot
    from bayesrule.plot import figure as plot_cli

    plt = pyplot()
    calls = []

    def draw(model, X, y, *, kind, features=None, ax=None):
        calls.append((type(model).__name__, list(X.columns), y, kind, features))
        _, ax = plt.subplots(figsize=(3, 2))
        return ax

    monkeypatch.setattr(plot_cli, "draw", draw)
    assert main(["fit", "fruit.csv", "--target", "fruit", "-o", "m"]) == 0
    argv = ["plot", "m", "fruit.csv", "--kind", "likelihood", "--features", "color_nm,weight_g"]
    assert main([*argv, "-o", "sub/x.png"]) == 0
    name, columns, y, kind, features = calls[-1]
    assert (name, columns, kind, features) == (
        "QuadraticDiscriminant",
        ["weight_g", "color_nm"],
        "likelihood",
        ("color_nm", "weight_g"),
    )
    assert y.tolist() == fruit_csv["fruit"].tolist()  # the target of fit, found in the data
    assert capsys.readouterr().out.endswith(
        "likelihood figure (300 x 200 pixels) written to sub/x.png\n"
    )
    assert main([*argv, "-o", "y.png", "--size", "4x3", "--dpi", "50"]) == 0
    assert matplotlib.image.imread("y.png").shape[:2] == (150, 200)
    assert matplotlib.image.imread("sub/x.png").shape[:2] == (200, 300)


def test_version_and_broken_pipe_free_output(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "bayesrule 0.1.0\n"
