"""The whole command-line workflow through the real `bayesrule` command, in a subprocess.

fit, inspect, predict --proba, evaluate --json, plot and compare on the fruit data of
seed 003 and on scikit-learn's wine data, each written to CSV; every number the command
prints is checked against the Python API on the same data.
"""

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.model_selection import StratifiedKFold, train_test_split

from bayesrule import LinearDiscriminant, LossMatrix, QuadraticDiscriminant, report
from bayesrule.cli import main
from bayesrule.datasets import fruit

FRUIT_PRIORS = {"apple": 0.4, "orange": 0.4, "grapefruit": 0.2}


def bayesrule(*args, cwd):
    """Run the command; it must succeed and, piped, write nothing to stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "bayesrule", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # piped: no progress bar and no warning; only a stage still running after
    # STAGE_DELAY seconds says what it does, one line each
    for line in done.stderr.splitlines():
        assert re.fullmatch(rf"bayesrule {args[0]}: [^:]+( \.\.\.|: done in .*)", line), line
    return done.stdout


def write_fruit(tmp_path):
    frames = []
    for seed, name in [(0, "train.csv"), (1, "test.csv")]:
        data = fruit(40, random_state=seed)
        frame = pd.DataFrame(data.data, columns=data.feature_names)
        frame["fruit"] = data.target
        frame.to_csv(tmp_path / name, index=False)
        frames.append(frame)
    return frames


def compare_table(out: str) -> list[list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rank"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def cv_accuracy(make, X, y, folds=3):
    """The command's cross-validation, through the API: out-of-fold accuracy."""
    decided = np.empty(len(y), dtype=object)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y):
        decided[test] = make().fit(X.iloc[train], y[train]).predict(X.iloc[test])
    return float(np.mean(decided == y))


def test_fruit_workflow(tmp_path):
    train, test = write_fruit(tmp_path)
    features = ["weight_g", "color_nm"]
    api = QuadraticDiscriminant(
        priors=FRUIT_PRIORS, loss=LossMatrix.with_reject(3, 0.1), reject_label="reject"
    ).fit(train[features], train["fruit"].to_numpy(dtype=str))

    out = bayesrule(
        "fit",
        "train.csv",
        "--target",
        "fruit",
        "--priors",
        "apple=0.4,orange=0.4,grapefruit=0.2",
        "--reject-cost",
        "0.1",
        "-o",
        "fruit.model",
        cwd=tmp_path,
    )
    assert out.startswith(
        "Fitted qda (QuadraticDiscriminant) on 120 rows of train.csv: 2 features "
        "(weight_g, color_nm); target 'fruit', 3 classes."
    )
    assert "Model written to fruit.model" in out
    accuracy = float(re.search(r"Training accuracy: ([\d.]+) %", out).group(1))
    assert accuracy == round(100 * api.score(train[features], train["fruit"]), 1)

    out = bayesrule("inspect", "fruit.model", cwd=tmp_path)
    assert (
        "Model file fruit.model: qda (bayesrule.estimators.gaussian.QuadraticDiscriminant)" in out
    )
    assert "  feature columns: weight_g, color_nm" in out
    assert "  target column:   fruit" in out
    assert "  data:            train.csv" in out
    assert "  library version: 0.1.0" in out
    assert re.search(r"  trained at:      \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", out)
    assert "Classes: apple, grapefruit, orange" in out
    assert re.search(r"  apple\s+0.4\n  grapefruit\s+0.2\n  orange\s+0.4\n", out)
    assert re.search(r"  reject\s+0.1\s+0.1\s+0.1\n", out)
    assert "reject_label = 'reject'" in out

    bayesrule(
        "predict", "fruit.model", "test.csv", "--proba", "--risk", "-o", "p.csv", cwd=tmp_path
    )
    pred = pd.read_csv(tmp_path / "p.csv")
    assert list(pred.columns) == [
        "decision",
        "P(apple)",
        "P(grapefruit)",
        "P(orange)",
        "R(apple)",
        "R(grapefruit)",
        "R(orange)",
        "R(reject)",
    ]
    proba = pred[["P(apple)", "P(grapefruit)", "P(orange)"]].to_numpy()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-5)  # 6 digits
    np.testing.assert_allclose(proba, api.predict_proba(test[features]), rtol=5e-6, atol=1e-300)
    np.testing.assert_allclose(pred.iloc[:, 4:].to_numpy(), api.risk(test[features]), rtol=5e-6)
    assert pred["decision"].tolist() == api.predict(test[features]).tolist()
    assert pred["decision"].tolist().count("reject") == 6  # Chow's rule at cost 0.1

    out = bayesrule("evaluate", "fruit.model", "test.csv", "--json", cwd=tmp_path)
    got = json.loads(out)
    expected = report(api, test[features], test["fruit"].to_numpy(dtype=str))
    assert got["overall"]["accuracy"] == expected.overall_accuracy
    assert got["overall"]["reject"] == expected.overall_reject
    assert got["confusion_matrix"] == expected.confusion_matrix.tolist()
    assert got["log_loss"] == pytest.approx(expected.log_loss, rel=1e-12)
    assert got["reject_label"] == "reject" and got["actions"][-1] == "reject"
    out = bayesrule("evaluate", "fruit.model", "test.csv", cwd=tmp_path)  # target as fit
    overall = next(line for line in out.splitlines() if line.startswith("Overall")).split()
    assert float(overall[1]) == round(100 * expected.overall_accuracy, 1)
    assert "Accuracy on accepted samples (%)" in out and "Expected risk:" in out

    out = bayesrule(
        "plot",
        "fruit.model",
        "test.csv",
        "--kind",
        "regions",
        "--size",
        "6x4",
        "-o",
        "regions.png",
        cwd=tmp_path,
    )
    assert out.strip() == "regions figure (600 x 400 pixels) written to regions.png"
    import matplotlib.image

    assert matplotlib.image.imread(tmp_path / "regions.png").shape[:2] == (400, 600)

    out = bayesrule("compare", "train.csv", "--target", "fruit", "--cv", "3", cwd=tmp_path)
    assert "3-fold stratified cross-validation, best first by log loss" in out
    rows = compare_table(out)
    names = [row[1] for row in rows]
    assert sorted(names) == sorted(
        ["qda", "lda", "gaussian-nb", "nearest-mean", "gaussian", "mixture", "kernel-nb"]
    )
    assert [row[0] for row in rows] == ["1", "2", "3", "4", "5", "6", "7"]
    losses = [float(row[3]) for row in rows]
    assert losses == sorted(losses)
    y = train["fruit"].to_numpy(dtype=str)
    qda = next(row for row in rows if row[1] == "qda")
    assert float(qda[2]) == round(100 * cv_accuracy(QuadraticDiscriminant, train[features], y), 1)
    assert float(qda[4]) == pytest.approx(
        QuadraticDiscriminant().fit(train[features], y).bic(train[features], y), abs=0.06
    )


def test_wine_workflow(tmp_path):
    wine = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    train, test = train_test_split(wine, test_size=0.3, stratify=wine["cultivar"], random_state=0)
    train.to_csv(tmp_path / "wine_train.csv", index=False)
    test.to_csv(tmp_path / "wine_test.csv", index=False)
    features = [c for c in wine.columns if c != "cultivar"]
    api = LinearDiscriminant().fit(train[features], train["cultivar"].to_numpy())

    out = bayesrule(
        "fit",
        "wine_train.csv",
        "--target",
        "cultivar",
        "--model",
        "lda",
        "-o",
        "wine.model",
        cwd=tmp_path,
    )
    assert out.startswith("Fitted lda (LinearDiscriminant) on 124 rows of wine_train.csv: 13 ")

    out = bayesrule("inspect", "wine.model", cwd=tmp_path)
    assert "  feature columns: " + ", ".join(features) in out
    assert "Classes: 0, 1, 2" in out and "shrinkage = None" in out

    out = bayesrule("predict", "wine.model", "wine_test.csv", "--proba", cwd=tmp_path)
    pred = pd.read_csv(pd.io.common.StringIO(out))
    assert list(pred.columns) == ["decision", "P(0)", "P(1)", "P(2)"]
    proba = pred[["P(0)", "P(1)", "P(2)"]].to_numpy()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-5)  # 6 digits
    np.testing.assert_allclose(proba, api.predict_proba(test[features]), rtol=5e-6, atol=1e-300)
    assert pred["decision"].tolist() == api.predict(test[features]).tolist()

    got = json.loads(
        bayesrule(
            "evaluate",
            "wine.model",
            "wine_test.csv",
            "--target",
            "cultivar",
            "--json",
            cwd=tmp_path,
        )
    )
    expected = api.score(test[features], test["cultivar"])
    assert got["overall"]["accuracy"] == expected
    assert got["classes"] == [0, 1, 2] and got["reject_label"] is None
    assert [c["n"] for c in got["per_class"]] == np.bincount(test["cultivar"]).tolist()

    out = bayesrule(
        "plot",
        "wine.model",
        "wine_test.csv",
        "--kind",
        "posterior",
        "--features",
        "alcohol,proline",
        "--size",
        "9x3",
        "-o",
        "post.png",
        cwd=tmp_path,
    )
    import matplotlib.image

    assert matplotlib.image.imread(tmp_path / "post.png").shape[:2] == (300, 900)

    out = bayesrule("compare", "wine_train.csv", "--target", "cultivar", "--cv", "3", cwd=tmp_path)
    rows = compare_table(out)
    assert {row[1] for row in rows} == {
        "qda",
        "lda",
        "gaussian-nb",
        "nearest-mean",
        "gaussian",
        "mixture",
        "kernel-nb",
    }
    losses = [float(row[3]) for row in rows if row[0] != "-"]
    assert losses == sorted(losses)
    lda = next(row for row in rows if row[1] == "lda")
    y = train["cultivar"].to_numpy()
    assert float(lda[2]) == round(100 * cv_accuracy(LinearDiscriminant, train[features], y), 1)


def test_text_workflow_reproduces_the_seed(tmp_path, capsys):
    from bayesrule.datasets import sports

    data = sports()
    pd.DataFrame({"text": data.data, "label": data.target}).to_csv(tmp_path / "s.csv", index=False)
    queries = pd.DataFrame({"text": [data.query, "the election was close", None]})
    queries.to_csv(tmp_path / "q.csv", index=False)
    model = str(tmp_path / "s.model")
    assert (
        main(
            [
                "fit",
                str(tmp_path / "s.csv"),
                "--target",
                "label",
                "--text-column",
                "text",
                "-o",
                model,
            ]
        )
        == 0
    )
    assert "Fitted multinomial-nb (MultinomialNB) on 5 rows" in capsys.readouterr().out
    assert main(["predict", model, str(tmp_path / "q.csv"), "--proba"]) == 0
    pred = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert pred["decision"].tolist() == ["Sports", "Not sports", "Sports"]
    # the seed's products 4.61e-5 and 1.43e-5 with the priors 3/5 and 2/5
    sports_post = 4.608e-5 * 0.6 / (4.608e-5 * 0.6 + 1.42938e-5 * 0.4)
    assert pred["P(Sports)"][0] == pytest.approx(sports_post, rel=1e-4)
    assert pred["P(Sports)"][2] == pytest.approx(0.6)  # no words: the prior
    assert main(["inspect", model]) == 0
    out = capsys.readouterr().out
    assert "  vocabulary:      14 words: a, but, clean, close, election" in out
