"""``bayesrule inspect``: a saved model's metadata, parameters, priors and loss."""

from __future__ import annotations

import reprlib

from ..io import info
from . import models as M
from .saved import features_names, load_model

#: parameters shown briefly: a few levels and items of a nested value, never all of it
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 4, 120, 120


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


def run(args) -> int:
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
        print(f"  {key} = {_SHORT.repr(value)}".replace("\n", " "))
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
