"""``bayesrule predict``: decisions (and posteriors and risks) for new data."""

from __future__ import annotations

import sys

from . import data as D
from .saved import features_of, load_model, output_folder


def run(args) -> int:
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
        output_folder(args.output)
        out.to_csv(args.output, index=False)
    else:
        out.to_csv(sys.stdout, index=False)
    return 0
