"""Serving the explorer: a Bokeh server on localhost, BokehJS served by it (no network).

The server binds to ``localhost`` unless told otherwise (``address="0.0.0.0"`` or
``bayesrule explore --address 0.0.0.0`` makes it reachable from other machines: do that
only on a trusted network).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .setting import Setting, fruit_setting


def setting_of(model) -> Setting:
    """The setting of a fitted two-feature Gaussian classifier (or a model file): its
    classes, means, covariances, priors and loss; ValueError saying why where the
    explorer cannot draw it."""
    if model is None:
        return fruit_setting()
    if isinstance(model, (str, Path)):
        from ..io import load

        model = load(model)
    means = getattr(model, "means_", None)
    if means is None or not hasattr(model, "full_covariances"):
        raise ValueError(
            f"the explorer draws Gaussian classifiers (QDA, LDA, Gaussian naive Bayes); "
            f"this model is a {type(model).__name__}"
        )
    if means.shape[1] != 2:
        raise ValueError(
            f"the explorer draws models of two features; this one has {means.shape[1]} "
            "(fit it on two columns to explore it)"
        )
    if not 2 <= means.shape[0] <= 4:
        raise ValueError(f"the explorer draws 2 to 4 classes; this model has {means.shape[0]}")
    covs = model.full_covariances()
    K = means.shape[0]
    matrix = np.asarray(model.loss_.matrix, dtype=float)
    reject = float(matrix[K, 0]) if matrix.shape[0] == K + 1 else None
    spread = 3.5 * np.sqrt(np.stack([covs[:, 0, 0], covs[:, 1, 1]], axis=1))
    low, high = (means - spread).min(axis=0), (means + spread).max(axis=0)
    names = getattr(model, "feature_names_in_", None)
    return Setting(
        classes=tuple(str(c) for c in model.classes_.tolist()),
        means=np.asarray(means, dtype=float),
        covariances=covs,
        priors=np.asarray(model.class_prior_, dtype=float),
        loss=matrix[:K],
        reject_cost=reject,
        features=tuple(map(str, names)) if names is not None else ("x0", "x1"),
        bounds=(float(low[0]), float(high[0]), float(low[1]), float(high[1])),
    )


def make_server(model=None, *, port: int = 5006, address: str = "localhost"):
    """A Bokeh server (not started) serving the explorer at ``/``."""
    from bokeh.application import Application
    from bokeh.application.handlers.function import FunctionHandler
    from bokeh.server.server import Server

    from .app import build

    setting = setting_of(model)
    app = Application(FunctionHandler(lambda doc: build(doc, setting)))
    origins = [f"{address}:{port}", f"localhost:{port}", f"127.0.0.1:{port}"]
    return Server({"/": app}, port=port, address=address, allow_websocket_origin=origins)


def serve(model=None, *, port: int = 5006, address: str = "localhost", show: bool = True):
    """Start the explorer at ``http://<address>:<port>/`` and block until Ctrl-C."""
    server = make_server(model, port=port, address=address)
    server.start()
    url = f"http://{address}:{server.port}/"
    print(f"bayesrule explore: serving {url} (Ctrl-C stops it)")
    if address == "localhost":
        print("  bound to this machine only; --address 0.0.0.0 serves other machines too")
    if show:
        server.io_loop.add_callback(server.show, "/")
    try:
        server.io_loop.start()
    except KeyboardInterrupt:
        print("stopped")
    return 0
