"""Statistics over row blocks, the protocol of multi-pass fits on a Dask collection.

A family whose fit on a Dask collection needs passes over the data (EM, Ledoit-Wolf's
second pass, the bins and parent counts of semi-naive Bayes) receives a :class:`Blocks`
and asks it to map a function over every block and merge the results (``merge(a, b)``,
associative, a part may be None); ``bayesrule._dask.DaskBlocks`` runs those calls as a
tree of tasks on the active Dask scheduler, so families never import Dask. In memory
the families fit on the array directly.
"""

from __future__ import annotations

from collections.abc import Callable

#: a block's temporaries are bounded by about this many bytes.
BLOCK_BYTES = 1 << 23


class Blocks:
    """Row blocks of a data set, each ``(X, class indices, weights or None)`` or None
    (a block without rows).

    ``map_reduce(function, merge, *args)`` is ``merge`` over the blocks of
    ``function(block, *args)`` (never called on an empty block; None when every block is
    empty); iterating gives the blocks with rows one at a time, in memory, in order.
    """

    def __init__(self, parts: list):
        self.parts = list(parts)

    def map_reduce(self, function: Callable, merge: Callable, *args):
        raise NotImplementedError

    def __iter__(self):
        raise NotImplementedError


def add(a, b=None):
    """``a + b`` where None is nothing (a merge for additive arrays and counts)."""
    return b if a is None else a if b is None else a + b
