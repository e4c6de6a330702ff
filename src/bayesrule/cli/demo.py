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
    from .. import QuadraticDiscriminant, report
    from ..datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_MEANS, FRUIT_PRIORS, fruit
    from ..decision import bayes_action

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
    from .. import LossMatrix, QuadraticDiscriminant
    from ..plot import decision_regions
    from ..plot._axes import _pyplot

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


def run_text(echo=print):
    """Run seed 000's text example: multinomial naive Bayes on five short texts.

    Prints the vocabulary, the smoothed word probabilities of the query's words, the
    seed's products ``4.61e-5`` (Sports) and ``1.43e-5`` (Not sports), the posteriors
    and the decision. Returns the fitted model.

    Examples
    --------
    >>> model = run_text(echo=lambda line: None)
    >>> model.predict(model.words_.transform(["A very close game"]))
    array(['Sports'], dtype='<U10')
    """
    from sklearn.feature_extraction.text import CountVectorizer

    from .. import MultinomialNB
    from ..datasets import sports

    data = sports()
    words = CountVectorizer(token_pattern=r"(?u)\b\w+\b")
    X = words.fit_transform(data.data)
    y = np.asarray(data.target)
    model = MultinomialNB(alpha=1).fit(X, y)
    model.words_ = words
    vocabulary = words.get_feature_names_out().tolist()
    classes = model.classes_.tolist()
    order = sorted(range(len(classes)), key=lambda c: classes[c] != "Sports")  # Sports first

    echo("bayesrule demo: sports or not (seed 000, multinomial naive Bayes)")
    echo("=" * 68)
    for text, label in zip(data.data, y, strict=True):
        echo(f"  {text!r:<34} {label}")
    echo(f"Vocabulary: {len(vocabulary)} words (one-letter words kept): {', '.join(vocabulary)}")
    counts = model.feature_count_
    totals = counts.sum(axis=1)
    echo("Words per class: " + ", ".join(f"{classes[c]} {int(totals[c])}" for c in order))
    echo(f"Laplace smoothing: P(word | class) = (count + 1) / (words in class + {len(vocabulary)})")
    echo("")
    echo(f"Query: {data.query!r}")
    query = words.transform([data.query])
    theta = np.exp(model.likelihood_.feature_log_prob_)
    echo(f"  {'word':<8}" + "".join(f"{'P(w|' + classes[c] + ')':>24}" for c in order))
    for word in data.query.lower().split():
        j = vocabulary.index(word)
        cells = [
            f"{int(counts[c, j]) + 1}/{int(totals[c]) + len(vocabulary)} = {theta[c, j]:.4f}"
            for c in order
        ]
        echo(f"  {word:<8}" + "".join(f"{cell:>24}" for cell in cells))
    like = np.exp(model.log_likelihood(query))[0]
    post = model.predict_proba(query)[0]
    echo(
        "  product p(x|class), without the prior: "
        + ", ".join(f"{classes[c]} {like[c]:.2e}" for c in order)
    )
    echo(
        "  prior P(class): " + ", ".join(f"{classes[c]} {model.class_prior_[c]:.1f}" for c in order)
    )
    echo("  posterior P(class|x): " + ", ".join(f"{classes[c]} {post[c]:.4f}" for c in order))
    echo(f"  decision: {model.predict(query)[0]}")
    return model


def run_mixture(output: str | Path = "bayesrule-mixture.png", random_state: int = 0, echo=print):
    """Run seed 000's mixture example: one mode against two, components chosen by BIC.

    Fits ``GaussianMixtureBayes("bic")`` and a single Gaussian per class (QDA) to 300
    samples of :func:`bayesrule.datasets.two_modes`, prints the BIC of every candidate,
    the chosen components and both accuracies on 3000 fresh samples, and writes the
    components and the BIC curves to ``output``. Returns the path of the figure.
    """
    from .. import GaussianMixtureBayes, QuadraticDiscriminant
    from ..datasets import two_modes

    start = time.perf_counter()
    train = two_modes(300, random_state=random_state)
    test = two_modes(3000, random_state=random_state + 1)
    gmm = GaussianMixtureBayes("bic", max_components=4, random_state=random_state)
    gmm.fit(train.data, train.target)
    qda = QuadraticDiscriminant().fit(train.data, train.target)

    echo("bayesrule demo: one mode against two (seed 000, a Gaussian mixture per class)")
    echo("=" * 68)
    echo("300 training samples: class 1 (100) from one Gaussian at (0, 0); class 2 (200)")
    echo("from two equally weighted Gaussians at (3, -1) and (2, 3).")
    echo("")
    echo("GaussianMixtureBayes(n_components='bic', max_components=4): BIC of each")
    echo("candidate number of components (lower is better):")
    echo(f"  {'':<9}" + "".join(f"{k:>11}" for k in range(1, 5)) + "     chosen")
    for label, table in gmm.bic_.items():
        chosen = gmm.mixtures_[label].n_components
        cells = "".join(f"{table.get(('full', k), float('nan')):>11.1f}" for k in range(1, 5))
        echo(f"  class {label:<3}{cells}     {chosen}")
    echo("")
    echo("Components of the chosen mixtures (true: class 2 weights 0.5, 0.5 at (3, -1), (2, 3)):")
    for label, model in gmm.mixtures_.items():
        for k in range(model.n_components):
            mean = model.means_[k]
            echo(
                f"  class {label}, component {k + 1}: weight {model.weights_[k]:.2f}, "
                f"mean ({mean[0]:.2f}, {mean[1]:.2f})"
            )
    echo("")
    echo("Accuracy on 3000 fresh samples:")
    acc_qda, acc_gmm = qda.score(test.data, test.target), gmm.score(test.data, test.target)
    for label, acc in [
        ("one Gaussian per class (QDA):", acc_qda),
        ("a mixture per class (BIC's choice):", acc_gmm),
    ]:
        echo(f"  {label:<36}{100 * acc:5.1f} %")
    echo("  the Bayes rule with the true densities errs on about 3.9 % (96.1 % accuracy)")
    path = _mixture_figure(gmm, train, Path(output))
    echo("")
    echo(f"Components and BIC curves written to {path}")
    echo(f"(done in {time.perf_counter() - start:.1f} s)")
    return path


def _mixture_figure(gmm, train, path: Path) -> Path:
    from ..plot import bic_curve, mixture_components
    from ..plot._axes import _pyplot

    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 5), constrained_layout=True)
    mixture_components(
        gmm,
        train.data,
        train.target,
        ax=axes[0],
        title="components chosen by BIC (2-sigma ellipses)",
    )
    axes[0].set_xlabel("x1")
    axes[0].set_ylabel("x2")
    bic_curve(gmm, ax=axes[1], title="BIC per class and number of components")
    fig.suptitle("One mode against two: GaussianMixtureBayes(n_components='bic')")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.resolve()


def run(args) -> int:
    """The ``demo`` subcommand."""
    output = args.output or f"bayesrule-{args.example}.png"
    from .plot import figure_format

    figure_format(output)  # an unknown suffix is refused before the demo runs
    if args.example == "fruit":
        run_fruit(output, args.random_state)
    elif args.example == "text":
        run_text()
    else:
        run_mixture(output, args.random_state)
    return 0
