"""A Dask array whose blocks count their loads: how many passes over the data a fit
makes (threaded or synchronous scheduler)."""

import dask
import dask.array as da


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
