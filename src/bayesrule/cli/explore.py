"""``bayesrule explore``: serve the explorer (:mod:`bayesrule.explore`)."""

from __future__ import annotations

from .errors import CLIError


def run(args) -> int:
    try:
        import bokeh  # noqa: F401
    except ImportError:
        raise CLIError("explore needs bokeh: pip install 'bayesrule[explore]'") from None
    from ..explore.server import serve
    from ..explore.setting import setting_of

    setting_of(args.model)  # a model it cannot draw: one line, before serving
    return serve(args.model, port=args.port, address=args.address, show=not args.no_browser)
