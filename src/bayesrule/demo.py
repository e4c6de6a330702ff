"""The fruit demo of seed 003: fit, the worked example, a loss matrix, accuracy, a figure."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

SEED_LOSS = [[0, 2, 3], [1, 0, 2], [1, 1, 0]]  # rows: decide apple, orange, grapefruit
X_EXAMPLE = np.array([[170.0, 585.0]])


def _row(label: str, values, fmt: str) -> str:
    return f"  {label:<26}" + "".join(f"{format(v, fmt):>14}" for v in values)


def run_fruit(output: str | Path = "bayesrule-fruit.png", random_state: int = 0, echo=print):
    """Run the fruit demo, print its report and write the decision-region figure.

    Returns the path of the figure.
    """
    from . import QuadraticDiscriminant, report
    from .datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_MEANS, FRUIT_PRIORS, fruit
    from .decision import bayes_action

    start = time.perf_counter()
    names = list(FRUIT_CLASSES)
    priors = dict(zip(names, FRUIT_PRIORS.tolist(), strict=True))
    header = "".join(f"{n:>14}" for n in names)

    echo("bayesrule demo: fruit at a self-checkout (seed 003)")
    echo("=" * 68)
    train = fruit(1000, random_state=random_state)
    test = fruit(1000, random_state=random_state + 1)
    model = QuadraticDiscriminant(priors=priors).fit(train.data, train.target)
    echo(
        f"Fitted QuadraticDiscriminant on {len(train.target)} training fruit "
        "(1000 per class), priors apple 0.4, orange 0.4, grapefruit 0.2."
    )
    echo("ML estimates (divide by n), true values in brackets:")
    order = [list(model.classes_).index(n) for n in names]
    for i, c in enumerate(order):
        mu, S = model.means_[c], model.covariances_[c]
        echo(
            f"  {names[i]:<11} mean [{mu[0]:7.2f}, {mu[1]:7.2f}]  ({FRUIT_MEANS[i].tolist()})"
            f"   cov [[{S[0, 0]:7.2f}, {S[0, 1]:6.2f}], [{S[1, 0]:6.2f}, {S[1, 1]:7.2f}]]"
        )
    echo("")
    echo("Discriminant functions g_i(x) = x'W_i x + w_i'x + w_i0 (seed eqs. 23-26):")
    for i, c in enumerate(order):
        W, w, w0 = model.quadratic_coef_[c], model.coef_[c], model.intercept_[c]
        echo(
            f"  {names[i]:<11} W = [[{W[0, 0]:.4e}, {W[0, 1]:.4e}], [{W[1, 0]:.4e}, "
            f"{W[1, 1]:.4e}]]  w = [{w[0]:.5f}, {w[1]:.5f}]  w0 = {w0:.3f}"
        )

    echo("")
    echo("Worked example: x = [170 g, 585 nm], with the seed's true parameters")
    seed_model = QuadraticDiscriminant.from_parameters(
        FRUIT_MEANS, FRUIT_COVARIANCES, priors=FRUIT_PRIORS, classes=names, loss=SEED_LOSS
    )
    like = np.exp(seed_model.log_likelihood(X_EXAMPLE))[0]
    evidence = float(np.exp(seed_model.log_evidence(X_EXAMPLE))[0])
    post = seed_model.predict_proba(X_EXAMPLE)[0]
    risk = seed_model.risk(X_EXAMPLE)[0]
    echo(f"  {'':<26}{header}")
    echo(_row("likelihood p(x|w)", like, ".4e"))
    echo(_row("prior P(w)", FRUIT_PRIORS, ".1f"))
    echo(_row("posterior P(w|x)", post, ".4f"))
    echo(f"  evidence p(x) = {evidence:.4e}")
    # zero-one loss: the Bayes action is the class of largest posterior
    echo(f"  minimum-error decision (largest posterior): {names[bayes_action(post)]}")
    echo("")
    echo("With the seed's loss matrix (rows: decide apple, orange, grapefruit):")
    for i, row in enumerate(SEED_LOSS):
        echo(f"  {names[i]:<11} {row}")
    echo(f"  {'':<26}{header}")
    echo(_row("conditional risk R(a|x)", risk, ".4f"))
    echo(
        f"  minimum-risk decision: {seed_model.predict(X_EXAMPLE)[0]}"
        "  (mistaking an orange for an apple costs twice as much)"
    )
    echo("  (the seed prints 0.7097: it multiplies posteriors already rounded to 4 digits)")

    echo("")
    echo("Accuracy of the fitted model on 3000 fresh test fruit:")
    echo(str(report(model, test.data, test.target)))
    path = _figure(model, train, Path(output), priors)
    echo("")
    echo(f"Decision regions written to {path}")
    echo(f"(done in {time.perf_counter() - start:.1f} s)")
    return path


def _figure(model, train, path: Path, priors) -> Path:
    from . import LossMatrix, QuadraticDiscriminant
    from .plot import _pyplot, decision_regions

    plt = _pyplot()
    with_loss = QuadraticDiscriminant(
        priors=priors, loss=LossMatrix(SEED_LOSS, classes=list(priors))
    ).fit(train.data, train.target)
    with_reject = QuadraticDiscriminant(priors=priors, loss=LossMatrix.with_reject(3, 0.1)).fit(
        train.data, train.target
    )
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2), constrained_layout=True)
    panels = [
        (model, "minimum error rate (zero-one loss)"),
        (with_loss, "minimum risk, seed's loss matrix"),
        (with_reject, "zero-one loss with reject (cost 0.1)"),
    ]
    for ax, (est, title) in zip(axes, panels, strict=True):
        decision_regions(est, train.data, train.target, ax=ax, title=title)
        ax.set_xlabel("weight (g)")
        ax.set_ylabel("colour wavelength (nm)")
    fig.suptitle("Fruit decision regions: QuadraticDiscriminant, priors 0.4 / 0.4 / 0.2")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.resolve()
