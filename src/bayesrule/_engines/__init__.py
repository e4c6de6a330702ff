"""Compiled and threaded kernels: the engines under the families (numba is optional).

``sparse`` holds the one-pass loops over CSR matrices (numba when installed, NumPy/SciPy
fallbacks giving the same numbers), ``threads`` how many threads bayesrule's own pools
use. Nothing here knows about classes, priors or estimators.
"""
