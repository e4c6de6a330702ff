"""The ``bayesrule`` command."""

from __future__ import annotations

import argparse
import sys

DEMO_EXAMPLE = """example:
  bayesrule demo                      # the fruit example, figure in ./bayesrule-fruit.png
  bayesrule demo fruit -o regions.png
"""


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="bayesrule",
        description="Bayesian classification: likelihood x prior / evidence -> decision.",
    )
    parser.add_argument("--version", action="version", version=f"bayesrule {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser(
        "demo",
        help="run a worked example of the source documents",
        description="Run a worked example: fit, the seed's numbers, accuracy and a figure.",
        epilog=DEMO_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("example", nargs="?", default="fruit", choices=["fruit"])
    demo.add_argument("-o", "--output", default="bayesrule-fruit.png", help="PNG path")
    demo.add_argument("--random-state", type=int, default=0, help="seed of the data")
    return parser


def main(argv=None) -> int:
    """Entry point of the ``bayesrule`` command; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "demo":
            from .demo import run_fruit

            run_fruit(args.output, args.random_state)
    except (ValueError, TypeError, ImportError, OSError) as exc:
        print(f"bayesrule {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
