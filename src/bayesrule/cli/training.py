"""The feature table (or word counts) and the model name that ``fit`` and ``compare``
learn from."""

from __future__ import annotations

from . import data as D
from . import models as M
from .cells import check_typos
from .errors import CLIError


def training_data(frame, source, target, features, text_column, model, id_column=None):
    """Features, their column names, the vocabulary and the model name for ``fit``.

    Returns ``(X, columns, vocabulary, model)``: X a DataFrame of the feature columns,
    or a sparse matrix of word counts when ``text_column`` is given. Without
    ``features``, every column but the target and ``id_column`` is a feature. Without
    ``model``, a text cell in a column of numbers is refused (by row, column and value)
    before the default model is chosen from the columns' kinds.
    """
    if text_column is not None:
        if features is not None:
            raise CLIError("give either --features or --text-column, not both")
        D.check_columns(frame, [text_column], source, "text column")
        model = model or "multinomial-nb"
        if not M.check_model_name(model).text:
            texts = ", ".join(n for n, m in M.MODELS.items() if m.text)
            raise CLIError(
                f"--text-column gives word counts, which {model} cannot take; use --model {texts}"
            )
        words = M.vectorizer()
        X = words.fit_transform(M.texts(frame[text_column]))
        vocabulary = words.get_feature_names_out().tolist()
        if not vocabulary:
            raise CLIError(f"text column {text_column!r} of {source} has no words")
        return X, [text_column], vocabulary, model
    columns = D.parse_columns(features)
    if id_column is not None:
        D.check_columns(frame, [id_column], source, "id column")
        if id_column == target:
            raise CLIError(f"the target column {target!r} cannot also be the id column")
    if columns is None:
        columns = [c for c in frame.columns if c not in (target, id_column)]
    elif target in columns:
        raise CLIError(f"the target column {target!r} cannot also be a feature")
    if not columns:
        raise CLIError(f"{source} has no column besides the target {target!r} to learn from")
    X = D.feature_frame(frame, columns, source)
    if model is None:
        check_typos(X, source)
        model = M.default_model(D.column_kinds(X), bool(X.isna().to_numpy().any()), False)
    M.check_model_name(model)
    M.check_data(model, X, source)
    return X, columns, None, model
