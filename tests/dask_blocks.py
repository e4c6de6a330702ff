"""A Dask array whose blocks count their loads: how many passes over the data a fit
makes (threaded or synchronous scheduler)."""

import dask
import dask.array as da

from bayesrule._blocks import Blocks


def counted_blocks(X, step: int):
    """``X`` as a Dask array of ``step`` rows per block, and a function giving the
    number of passes over it so far (block loads / blocks)."""
    loads = {"n": 0}

    def load(block):
        loads["n"] += 1
        return block

    starts = range(0, len(X), step)
    Xd = da.concatenate(
        [
            da.from_delayed(dask.delayed(load)(X[s : s + step]), X[s : s + step].shape, X.dtype)
            for s in starts
        ]
    )

    return Xd, lambda: loads["n"] / len(starts)


class InMemory(Blocks):
    """Blocks in memory, reduced in order: the reference the Dask adapter is checked
    against (the same map_reduce calls, no scheduler)."""

    def map_reduce(self, function, merge, *args):
        result = None
        for part in self.parts:
            value = None if part is None else function(part, *args)
            result = value if result is None else merge(result, value)
        return result

    def __iter__(self):
        return (p for p in self.parts if p is not None)
