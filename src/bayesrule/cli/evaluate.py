"""``bayesrule evaluate``: the accuracy report of a saved model on labelled data
(``--priors``, ``--loss`` and ``--reject-cost`` evaluate it under other priors or
another loss, without refitting)."""

from __future__ import annotations

import json

from ..report import report
from . import data as D
from . import models as M
from .predict import apply_decision_options, check_features
from .saved import features_of, load_model, true_labels


def run(args) -> int:
    status = args.status
    est = apply_decision_options(load_model(args.model), args)
    with status.stage(f"reading {args.data}", draw=False):
        frame = D.read_table(args.data, sep=D.parse_sep(args.sep), progress=not status.quiet)
    X = features_of(est, frame, args.data)
    check_features(est, X, args.data)
    y = true_labels(est, frame, args.target, args.data)
    with status.stage(f"evaluating on {len(y)} rows"):
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
