"""Safe persistence of fitted estimators: a versioned file of JSON and arrays, never pickle.

:func:`save` and :func:`load` (module ``files``, which describes the file format) write
and read one model file; :func:`register` (module ``codec``) allows a class of the
user's in files. See :mod:`bayesrule.io.files` for the format and examples.
"""

from .codec import register
from .files import info, load, save

__all__ = ["info", "load", "register", "save"]
