"""``bayesrule evaluate``: the accuracy report of a saved model on labelled data."""

from __future__ import annotations

import json

from ..report import report
from . import data as D
from . import models as M
from .saved import features_of, load_model, true_labels


def run(args) -> int:
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
