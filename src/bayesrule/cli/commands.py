"""The subcommands of ``bayesrule``: each ``run_<name>(args)`` returns the exit status."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from . import data as D
from . import models as M
from .errors import CLIError
from .progress import Progress
from .training import training_data

__all__ = [
    "features_of",
    "load_model",
    "run_compare",
    "run_demo",
    "run_evaluate",
    "run_fit",
    "run_inspect",
    "run_plot",
    "run_predict",
]


# --------------------------------------------------------------------------- fit
def run_fit(args) -> int:
    frame = D.read_table(args.data)
    y = D.target_labels(frame, args.target, args.data)
    X, columns, vocabulary, name = training_data(
        frame, args.data, args.target, args.features, args.text_column, args.model
    )
    classes = np.unique(y)
    D.check_two_classes(classes, args.target, args.data)
    priors = M.parse_priors(args.priors, classes)
    loss, reject = M.parse_loss(args.loss, classes, args.reject_cost)
    est = M.build(
        name,
        priors=priors,
        loss=loss,
        reject_label=reject,
        components=M.parse_components(args.components),
        max_components=args.max_components,
        random_state=args.random_state,
    )
    with Progress(1, f"fitting {name}") as bar:
        est.fit(X, y)
        bar.advance("done")
    M.set_metadata(
        est,
        name=name,
        columns=columns,
        target=args.target,
        source=args.data,
        n_samples=len(y),
        text_column=args.text_column,
        vocabulary=vocabulary,
    )
    from ..io import save

    _parent(args.output)
    save(est, args.output)
    described = (
        f"{len(vocabulary)} words of {args.text_column!r}"
        if vocabulary
        else (f"{len(columns)} features ({', '.join(columns)})")
    )
    print(
        f"Fitted {name} ({type(est).__name__}) on {len(y)} rows of {args.data}: "
        f"{described}; target {args.target!r}, {len(classes)} classes."
    )
    print(est.summary())
    print(f"Training accuracy: {100 * est.score(X, y):.1f} %")
    print(f"Model written to {args.output}")
    return 0


# --------------------------------------------------------------------------- shared
def _parent(path) -> None:
    """Make the folder of an output file (so that a new folder in ``-o`` just works)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)


def load_model(path):
    """A model file written by ``fit`` (or by :func:`bayesrule.io.save`)."""
    from ..io import load

    D.check_file(path)
    return load(path)


def features_of(est, frame, source):
    """The model's features from a table: its columns, or word counts of its text column."""
    text_column = getattr(est, "cli_text_column_", None)
    if text_column:
        D.check_columns(frame, [text_column], source, "text column")
        words = M.vectorizer(est.cli_vocabulary_)
        return words.transform(M.texts(frame[text_column]))
    columns = getattr(est, "cli_columns_", None)
    if columns is None and getattr(est, "feature_names_in_", None) is not None:
        columns = [str(c) for c in est.feature_names_in_]
    if columns is None:  # saved from Python with arrays: the first columns, by position
        n = est.n_features_in_
        if frame.shape[1] < n:
            raise CLIError(
                f"the model takes {n} features and {source} has {frame.shape[1]} columns"
            )
        return frame.iloc[:, :n].to_numpy()
    return D.feature_frame(frame, columns, source)


def true_labels(est, frame, target, source) -> np.ndarray:
    """The labels of ``target`` as the model's class labels (matched by their text)."""
    target = target or getattr(est, "cli_target_", None)
    if not target:
        raise CLIError("give the column of true labels with --target")
    y = D.target_labels(frame, target, source)
    by_text = {str(c): c for c in est.classes_.tolist()}
    unknown = sorted({str(v) for v in y.tolist()} - set(by_text))
    if unknown:
        raise CLIError(
            f"target column {target!r} of {source} has labels the model does not "
            f"know: {', '.join(unknown[:5])} (its classes: {', '.join(by_text)})"
        )
    return np.asarray([by_text[str(v)] for v in y.tolist()], dtype=est.classes_.dtype)


# --------------------------------------------------------------------------- predict
def run_predict(args) -> int:
    pd = D.pandas()
    est = load_model(args.model)
    frame = D.read_table(args.data)
    X = features_of(est, frame, args.data)
    out = pd.DataFrame({"decision": est.predict(X)})
    if args.proba:
        proba = est.predict_proba(X)
        for j, label in enumerate(est.classes_.tolist()):
            out[f"P({label})"] = proba[:, j]
    if args.risk:
        risk = est.risk(X)
        for i, action in enumerate(est.actions_.tolist()):
            out[f"R({action})"] = risk[:, i]
    if args.output:
        _parent(args.output)
        out.to_csv(args.output, index=False)
    else:
        out.to_csv(sys.stdout, index=False)
    return 0


# --------------------------------------------------------------------------- evaluate
def run_evaluate(args) -> int:
    from ..report import report

    est = load_model(args.model)
    frame = D.read_table(args.data)
    X = features_of(est, frame, args.data)
    y = true_labels(est, frame, args.target, args.data)
    rep = report(est, X, y)
    if args.json:
        print(json.dumps(rep.to_dict(), indent=2))
        return 0
    name = M.model_name_of(est)
    print(f"Evaluation of {name} ({type(est).__name__}) on {len(y)} rows of {args.data}")
    print(rep)
    if not rep.has_reject:
        print("Reject rate: 0.0 % (the model has no reject action)")
    return 0


# --------------------------------------------------------------------------- inspect
def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  "
        + "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]


def run_inspect(args) -> int:
    from ..io import info

    est = load_model(args.model)
    header = info(args.model)
    name = M.model_name_of(est)
    print(f"Model file {args.model}: {name} ({header['class']})")
    print(
        f"  written by bayesrule {header['bayesrule_version']} on {header['created']} "
        f"(format version {header['format_version']})"
    )
    print("Training:")
    meta = [
        ("data", getattr(est, "cli_data_", None)),
        ("rows", getattr(est, "cli_n_samples_", None)),
        ("trained at", getattr(est, "cli_trained_at_", None)),
        ("library version", getattr(est, "cli_version_", None)),
        ("target column", getattr(est, "cli_target_", None)),
        ("feature columns", ", ".join(features_names(est))),
        ("text column", getattr(est, "cli_text_column_", None)),
    ]
    vocabulary = getattr(est, "cli_vocabulary_", None)
    if vocabulary:
        shown = ", ".join(vocabulary[:20]) + (", ..." if len(vocabulary) > 20 else "")
        meta.append(("vocabulary", f"{len(vocabulary)} words: {shown}"))
    for key, value in meta:
        if value is not None:
            print(f"  {key + ':':<17}{value}")
    labels = [str(c) for c in est.classes_.tolist()]
    print(f"Classes: {', '.join(labels)}")
    print("Parameters:")
    for key, value in est.get_params(deep=False).items():
        print(f"  {key} = {value!r}".replace("\n", " "))
    print("Priors P(class):")
    print(
        "\n".join(
            _table([[label, f"{p:.6g}"] for label, p in zip(labels, est.class_prior_, strict=True)])
        )
    )
    print("Loss matrix (rows: actions, columns: classes):")
    rows = [["", *labels]]
    for action, row in zip(est.actions_.tolist(), est.loss_.matrix, strict=True):
        rows.append([str(action), *(f"{v:g}" for v in row)])
    print("\n".join(_table(rows)))
    print("Summary:")
    print(est.summary())
    return 0


def features_names(est) -> list[str]:
    columns = getattr(est, "cli_columns_", None)
    if columns is None and getattr(est, "feature_names_in_", None) is not None:
        columns = est.feature_names_in_.tolist()
    if columns is None:
        columns = [f"x{j}" for j in range(est.n_features_in_)]
    return [str(c) for c in columns]


# --------------------------------------------------------------------------- plot
def _size(text: str | None):
    if text is None:
        return None
    try:
        width, height = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise CLIError(f"--size must be WIDTHxHEIGHT in inches, e.g. 8x6, got {text!r}") from None
    if not (0 < width <= 100 and 0 < height <= 100):
        raise CLIError(f"--size {text!r}: width and height must be between 0 and 100 inches")
    return width, height


def _axis_features(est, text: str | None):
    if text is None:
        return None
    names = D.parse_columns(text)
    if len(names) != 2:
        raise CLIError(f"--features names the two features on the axes, e.g. A,B; got {text!r}")
    known = features_names(est)
    for name in names:
        if name not in known:
            raise CLIError(f"{name!r} is not a feature of the model; {D.suggest(name, known)}")
    return tuple(names)


def pyplot():
    """matplotlib's pyplot, drawing off screen (Agg) unless pyplot is already in use."""
    try:
        import matplotlib
    except ImportError:
        raise CLIError(
            "drawing figures needs matplotlib, which is not installed; install it with: "
            "pip install 'bayesrule[cli]'"
        ) from None
    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def run_plot(args) -> int:
    size = _size(args.size)
    if args.dpi < 10 or args.dpi > 1000:
        raise CLIError(f"--dpi must be between 10 and 1000, got {args.dpi}")
    est = load_model(args.model)
    if getattr(est, "cli_text_column_", None):
        raise CLIError("a model of word counts has no plane of features to draw")
    features = _axis_features(est, args.features)
    frame = D.read_table(args.data)
    X = features_of(est, frame, args.data)
    y = None
    target = args.target or getattr(est, "cli_target_", None)
    if args.target is not None or (target and target in frame.columns):
        y = true_labels(est, frame, target, args.data)
    plt = pyplot()
    from ..plot import figure as plot_cli

    ax = plot_cli.draw(est, X, y, kind=args.kind, features=features)
    fig = ax.figure
    if size is not None:
        fig.set_size_inches(*size)
    _parent(args.output)
    try:
        fig.savefig(args.output, dpi=args.dpi, format="png")
    finally:
        plt.close(fig)
    width, height = fig.get_size_inches() * args.dpi
    print(
        f"{args.kind} figure ({int(round(width))} x {int(round(height))} pixels) written "
        f"to {args.output}"
    )
    return 0


# --------------------------------------------------------------------------- compare, demo
def run_compare(args) -> int:
    from .compare import run

    return run(args)


def run_demo(args) -> int:
    from . import demo

    output = args.output or f"bayesrule-{args.example}.png"
    if args.example == "fruit":
        demo.run_fruit(output, args.random_state)
    elif args.example == "text":
        demo.run_text()
    else:
        demo.run_mixture(output, args.random_state)
    return 0
