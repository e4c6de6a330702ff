"""``bayesrule fit``: fit a model to a table and save it."""

from __future__ import annotations

import numpy as np

from ..io import save
from . import data as D
from . import models as M
from .progress import Progress
from .saved import output_folder
from .training import training_data


def run(args) -> int:
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
    output_folder(args.output)
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
