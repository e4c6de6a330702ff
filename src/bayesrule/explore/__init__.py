"""``bayesrule explore``: an interactive explorer of a Bayes decision in the browser.

:mod:`.setting` holds what a person changes (classes as Gaussians, priors, loss, reject
cost) and computes every number shown, with bayesrule's own estimators; :mod:`.app`
lays it out as a Bokeh document (an optional extra, ``pip install bayesrule[explore]``);
:mod:`.server` serves it on localhost, scripts and styles included (no network needed).
"""

from .setting import Setting, fruit_setting

__all__ = ["Setting", "explore", "fruit_setting"]


def explore(model=None, *, port: int = 5006, address: str = "localhost", show: bool = True):
    """Start the explorer (see :func:`bayesrule.explore.server.serve`) and block until
    interrupted; ``model``: a fitted two-feature Gaussian classifier or a model file
    to start from (default the fruit problem of seed 003)."""
    from .server import serve

    return serve(model, port=port, address=address, show=show)
