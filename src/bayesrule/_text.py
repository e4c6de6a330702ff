"""Text of fitted parameters: the blocks of numbers ``summary()`` prints, shared by the
families (each describes its own parameters) and :mod:`bayesrule.summary`."""

from __future__ import annotations

import numpy as np

#: features a family lists in ``summary()`` before counting the rest
FEATURES_SHOWN = 20


def block(title: str, array) -> list[str]:
    """``title:`` and the array below it, indented, six decimals, no ``-0.``."""
    array = np.asarray(array) + 0.0  # no "-0." entries
    text = np.array2string(array, precision=6, suppress_small=False, max_line_width=88)
    return [f"  {title}:", *("    " + line for line in text.splitlines())]
