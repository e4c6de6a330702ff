"""``bayesrule explain``: the log-odds terms of one row's decision (:mod:`bayesrule.explain`)."""

from __future__ import annotations

from . import data as D
from .errors import CLIError
from .predict import apply_decision_options, check_features
from .saved import features_of, load_model, output_folder


def run(args) -> int:
    est = apply_decision_options(load_model(args.model), args)
    if not hasattr(est, "explain"):
        raise CLIError(f"{args.model} holds a {type(est).__name__}, which has no explain")
    frame = D.read_for(args, args.data)
    D.ids_of(frame, args.id_column, args.data)  # a --id-column given must exist
    n = frame.shape[0]
    if not 0 <= args.row < n:
        raise CLIError(
            f"--row must be between 0 and {n - 1} (the rows of {args.data}), got {args.row}"
        )
    X = features_of(est, frame.iloc[[args.row]], args.data)
    check_features(est, X, args.data)
    why = est.explain(X, priors=getattr(est, "cli_call_", {}).get("priors"))
    print(why.text(0).replace("row 0:", f"row {args.row}:", 1))
    if args.output:
        from ..plot import explanation
        from ..plot._axes import _pyplot

        against = args.against
        if against is not None:
            labels = {str(c): c for c in est.classes_.tolist()}
            if against not in labels:
                raise CLIError(
                    f"--against must be one of the classes {sorted(labels)}, got {against!r}"
                )
            against = labels[against]
        ax = explanation(why, 0, against, title=None)
        ax.set_title(ax.get_title().replace("(row 0)", f"(row {args.row})"))
        output_folder(args.output)
        ax.figure.tight_layout()
        ax.figure.savefig(args.output)
        _pyplot().close(ax.figure)
        print(f"wrote {args.output}")
    return 0
