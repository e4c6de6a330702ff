"""Serving the explorer: a Bokeh server on localhost, BokehJS served by it (no network).

The server binds to ``localhost`` unless told otherwise (``address="0.0.0.0"`` or
``bayesrule explore --address 0.0.0.0`` makes it reachable from other machines: do that
only on a trusted network).
"""

from __future__ import annotations

from .setting import setting_of


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
    print(f"bayesrule explore: serving {url} (Ctrl-C stops it)", flush=True)
    if address == "localhost":
        print(
            "  bound to this machine only; --address 0.0.0.0 serves other machines too", flush=True
        )
    if show:
        server.io_loop.add_callback(server.show, "/")
    try:
        server.io_loop.start()
    except KeyboardInterrupt:
        print("stopped")
    return 0
