"""Text of fitted parameters: the blocks of numbers ``summary()`` prints, shared by the
families (each describes its own parameters) and :mod:`bayesrule.summary`; and the
words of messages: classes named by label, counts with their noun in the right number."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

#: features a family lists in ``summary()`` before counting the rest
FEATURES_SHOWN = 20


def block(title: str, array) -> list[str]:
    """``title:`` and the array below it, indented, six decimals, no ``-0.``."""
    array = np.asarray(array) + 0.0  # no "-0." entries
    text = np.array2string(array, precision=6, suppress_small=False, max_line_width=88)
    return [f"  {title}:", *("    " + line for line in text.splitlines())]


# ----------------------------------------------------------------- classes and counts in messages
#: the labels of the classes being fitted, set by the classifier around a likelihood's fit
#: (a likelihood sees class positions only); messages name classes by label through it
_LABELS: ContextVar = ContextVar("bayesrule_class_labels", default=None)


@contextmanager
def class_labels(labels):
    """Within the block, :func:`class_name` names class position ``c`` by ``labels[c]``."""
    token = _LABELS.set(list(labels))
    try:
        yield
    finally:
        _LABELS.reset(token)


def labelled(labels, call, *args):
    """``call(*args)`` with messages naming classes by ``labels`` (see :func:`class_labels`)."""
    with class_labels(labels):
        return call(*args)


def class_name(c: int) -> str:
    """``"class 'setosa'"`` (``"class 2"``) for the class at position ``c``, by its label
    where the classifier has set them, else ``"the class at position 2"``.

    >>> class_name(1)
    'the class at position 1'
    >>> with class_labels(["a", "b"]):
    ...     class_name(1)
    "class 'b'"
    """
    labels = _LABELS.get()
    if labels is None or not 0 <= int(c) < len(labels):
        return f"the class at position {int(c)}"
    return f"class {_label(labels[int(c)])}"


def class_names(positions) -> str:
    """Several classes: ``"classes 'a', 'b'"`` by label, else ``"the classes at
    positions [0, 1]"``; one class as :func:`class_name`."""
    positions = [int(c) for c in positions]
    if len(positions) == 1:
        return class_name(positions[0])
    labels = _LABELS.get()
    if labels is None or not all(0 <= c < len(labels) for c in positions):
        return f"the classes at positions {positions}"
    return "classes " + ", ".join(_label(labels[c]) for c in positions)


def _label(label) -> str:
    label = label.item() if isinstance(label, np.generic) else label
    return repr(label) if isinstance(label, str) else str(label)


def count(n, noun: str, plural: str | None = None) -> str:
    """``"1 sample"``, ``"2 samples"``, ``"1.5 samples"`` (a weighted count); ``plural``
    where adding "s" is wrong.

    >>> count(1, "sample"), count(3.0, "row"), count(0.5, "sample"), count(2, "class", "classes")
    ('1 sample', '3 rows', '0.5 samples', '2 classes')
    """
    return f"{n:g} {noun if n == 1 else plural or noun + 's'}"
