"""``bayesrule predict``: decisions (and posteriors and risks) for new data.

The output keeps the rows' ids (the index pandas wrote into the file, or
``--id-column``) as its first column; posteriors and risks are written with 6
significant digits. ``--priors``, ``--loss`` and ``--reject-cost`` decide under other
priors or another loss than the model was fitted with, without refitting (the
estimators read them when they decide).
"""

from __future__ import annotations

import sys

from . import data as D
from . import models as M
from .saved import features_of, load_model, output_folder

#: how numbers of the output are written: 6 significant digits
FLOAT_FORMAT = "%.6g"


def apply_decision_options(est, args):
    """Set ``--priors``, ``--loss`` and ``--reject-cost`` on a fitted model (no refit)."""
    classes = est.classes_
    if args.priors is not None:
        est.set_params(priors=M.parse_priors(args.priors, classes))
    if args.loss is not None or args.reject_cost is not None:
        loss, reject = M.parse_loss(args.loss, classes, args.reject_cost)
        est.set_params(loss=loss, reject_label=reject)
    return est


def check_features(est, X, source) -> None:
    """Refuse a cell the model cannot take, by row, column and value."""
    name = M.model_name_of(est)
    if name in M.MODELS and hasattr(X, "columns"):
        M.check_data(name, X, source)


def run(args) -> int:
    pd = D.pandas()
    status = args.status
    est = apply_decision_options(load_model(args.model), args)
    with status.stage(f"reading {args.data}", draw=False):
        frame = D.read_table(args.data, sep=D.parse_sep(args.sep), progress=not status.quiet)
    ids = D.ids_of(frame, args.id_column, args.data)
    X = features_of(est, frame, args.data)
    check_features(est, X, args.data)
    out = pd.DataFrame()
    if ids is not None:
        out[ids[0]] = ids[1]
    with status.stage(f"predicting {frame.shape[0]} rows"):
        out["decision"] = est.predict(X)
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
        out.to_csv(args.output, index=False, float_format=FLOAT_FORMAT)
    else:
        out.to_csv(sys.stdout, index=False, float_format=FLOAT_FORMAT)
    return 0
