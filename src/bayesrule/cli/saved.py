"""What the subcommands that read a saved model share: the model file, the features and
labels of a table for it, and the folder of an output file."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import data as D
from . import models as M
from .errors import CLIError

__all__ = ["features_names", "features_of", "load_model", "output_folder", "true_labels"]


def output_folder(path) -> None:
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


def features_names(est) -> list[str]:
    columns = getattr(est, "cli_columns_", None)
    if columns is None and getattr(est, "feature_names_in_", None) is not None:
        columns = est.feature_names_in_.tolist()
    if columns is None:
        columns = [f"x{j}" for j in range(est.n_features_in_)]
    return [str(c) for c in columns]
