"""The ``bayesrule`` command: fit, calibrate, predict, evaluate, shift, inspect, explain,
explore, plot, compare and demo.

Each subcommand has ``--help`` with an example. Mistakes in the input (a missing file
or column, an unknown model, a bad priors or loss spec, a damaged model file) give one
line on stderr, ``bayesrule <command>: error: ...``, and exit status 2; the global
``--debug`` flag shows the traceback instead.

Examples
--------
>>> from bayesrule.cli import main
>>> main(["--version"])
bayesrule 0.1.0
0
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .errors import CLIError
from .help_text import EPILOGS as _EPILOGS
from .help_text import HELP as _HELP

__all__ = ["CLIError", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``bayesrule fit: error: ...``, status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(
        prog="bayesrule",
        description="Bayesian classification: likelihood x prior / evidence -> decision.",
    )
    parser.add_argument("--version", action="version", version=f"bayesrule {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )
    common.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=argparse.SUPPRESS,
        help="no progress or stage lines on stderr",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name):
        return sub.add_parser(
            name,
            help=_HELP[name],
            description=_HELP[name][0].upper() + _HELP[name][1:] + ".",
            epilog=_EPILOGS[name],
            formatter_class=argparse.RawDescriptionHelpFormatter,
            parents=[common],
        )

    p = command("fit")
    _fit_options(p)

    p = command("calibrate")
    _fit_options(p)
    p.add_argument(
        "--method",
        default="temperature",
        choices=["temperature", "vector", "isotonic", "dirichlet"],
        help="the calibration map (default temperature)",
    )
    p.add_argument("--cv", type=int, default=5, help="folds of held-out posteriors (default 5)")

    p = command("predict")
    p.add_argument("model", help="model file written by fit")
    p.add_argument("data", help="CSV or Parquet file")
    p.add_argument("--proba", action="store_true", help="add the posteriors P(class)")
    p.add_argument("--risk", action="store_true", help="add the conditional risks R(action)")
    p.add_argument("-o", "--output", metavar="OUT", help="CSV file (default: stdout)")
    _decision_options(p)
    _guarantee_options(p)
    _table_options(p)

    p = command("evaluate")
    p.add_argument("model", help="model file written by fit")
    p.add_argument("data", help="CSV or Parquet file with the true labels")
    p.add_argument("--target", metavar="COL", help="column of true labels (default: as fit)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    _decision_options(p)
    _guarantee_options(p)
    _table_options(p, ids=False)

    p = command("shift")
    p.add_argument("model", help="model file written by fit (or calibrate)")
    p.add_argument("data", help="CSV or Parquet file of new, unlabelled rows")
    p.add_argument(
        "--method",
        default=None,
        choices=["em", "bbse", "rlls", "mlls-bcts"],
        help="estimator of the new priors (default: mlls-bcts with --validation, else em)",
    )
    p.add_argument(
        "--validation", metavar="FILE", help="labelled rows like the training data, not fitted on"
    )
    p.add_argument("--target", metavar="COL", help="labels of --validation (default: as fit)")
    p.add_argument(
        "--confidence", type=float, default=0.9, metavar="P", help="interval level (default 0.9)"
    )
    p.add_argument("--json", action="store_true", help="print the estimate as JSON")
    p.add_argument("--random-state", type=int, default=0, metavar="N", help="bootstrap seed")
    _table_options(p, ids=False)

    p = command("inspect")
    p.add_argument("model", help="model file written by fit")

    p = command("explain")
    p.add_argument("model", help="model file written by fit")
    p.add_argument("data", help="CSV or Parquet file of rows")
    p.add_argument("--row", type=int, default=0, metavar="N", help="the row, from 0 (default 0)")
    p.add_argument("--against", metavar="CLASS", help="of the figure (default: the runner-up)")
    p.add_argument("-o", "--output", metavar="FILE", help="also draw a waterfall: .png, .svg")
    _decision_options(p)
    _table_options(p)

    p = command("explore")
    p.add_argument("model", nargs="?", help="model file to start from (default: the fruit)")
    p.add_argument("--port", type=int, default=5006, help="port to serve on (default 5006)")
    p.add_argument(
        "--address", default="localhost", help="address to bind (default localhost only)"
    )
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")

    p = command("plot")
    p.add_argument("model", help="model file written by fit")
    p.add_argument("data", help="CSV or Parquet file to draw")
    kinds = ["regions", "posterior", "likelihood", "components", "bic"]
    p.add_argument("--kind", default="regions", choices=kinds, help="the figure (default regions)")
    p.add_argument("--features", metavar="A,B", help="the two features on the axes")
    p.add_argument("--target", metavar="COL", help="column of labels to colour the points")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="figure file: .png, .jpg, .svg, .pdf"
    )
    p.add_argument("--size", metavar="WxH", help="figure size in inches (default: as drawn)")
    p.add_argument("--dpi", type=int, default=100, help="pixels per inch (default 100)")
    _table_options(p, ids=False)

    p = command("compare")
    p.add_argument("data", help="CSV or Parquet file")
    p.add_argument("--target", required=True, metavar="COL", help="column of class labels")
    p.add_argument("--features", metavar="COLS", help="comma-separated feature columns")
    p.add_argument("--text-column", metavar="COL", help="column of texts, used as word counts")
    p.add_argument("--cv", type=int, default=5, help="number of folds (default 5)")
    p.add_argument("--models", metavar="NAMES", help="comma-separated models (default: all)")
    p.add_argument("--skip", metavar="NAMES", help="comma-separated models to leave out")
    p.add_argument(
        "--time-limit", type=float, metavar="S", help="stop a model after S seconds (skipped)"
    )
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument(
        "--random-state", type=int, default=0, metavar="N", help="seed of the folds and EM"
    )
    _table_options(p)

    p = command("demo")
    p.add_argument("example", nargs="?", default="fruit", choices=["fruit", "text", "mixture"])
    p.add_argument("-o", "--output", help="PNG path (default: bayesrule-<example>.png)")
    p.add_argument("--random-state", type=int, default=0, metavar="N", help="seed of the data")
    return parser


def _fit_options(p) -> None:
    """The options of ``fit`` (and ``calibrate``, which fits the same models)."""
    p.add_argument("data", help="CSV or Parquet file of training data")
    p.add_argument("--target", required=True, metavar="COL", help="column of class labels")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    p.add_argument("--model", metavar="NAME", help="model name (see below; default: by data)")
    p.add_argument("--features", metavar="COLS", help="comma-separated feature columns")
    p.add_argument("--priors", metavar="SPEC", help="empirical, uniform or label=p,label=p")
    p.add_argument("--loss", metavar="FILE", help="CSV loss matrix (actions x classes)")
    p.add_argument("--reject-cost", type=float, metavar="C", help="add Chow's reject action")
    p.add_argument("--text-column", metavar="COL", help="column of texts, used as word counts")
    p.add_argument("--components", metavar="N|bic", help="mixture: components per class")
    p.add_argument("--max-components", type=int, metavar="K", help="mixture: most tried by bic")
    p.add_argument("--random-state", type=int, default=0, metavar="N", help="seed of EM (mixture)")
    p.add_argument(
        "--reg-covar",
        type=_reg_covar,
        metavar="R",
        help="qda, lda: variance added, or auto (the default); mixture: a number",
    )
    p.add_argument(
        "--discretize",
        metavar="HOW",
        help="the semi-naive models (aode .. search): auto, mdl, quantile or none",
    )
    p.add_argument(
        "--n-bins", type=int, metavar="K", help="bins per column (the semi-naive models)"
    )
    _table_options(p)


def _reg_covar(text: str):
    """``--reg-covar``: ``auto`` or a number."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {text!r}") from None


def _table_options(p, ids: bool = True) -> None:
    p.add_argument("--sep", metavar="C", help="CSV separator (default: ',', tab for .tsv)")
    if ids:
        p.add_argument("--id-column", metavar="COL", help="column of row ids (not a feature)")


def _guarantee_options(p) -> None:
    p.add_argument(
        "--set", type=float, metavar="ALPHA", help="conformal sets missing the class w.p. <= ALPHA"
    )
    p.add_argument(
        "--max-error", type=float, metavar="E", help="abstain so that accepted error <= E"
    )
    p.add_argument(
        "--confidence", type=float, default=0.9, metavar="P", help="of --max-error (default 0.9)"
    )
    p.add_argument(
        "--calibration", metavar="FILE", help="labelled rows not fitted on, for --set/--max-error"
    )
    if not any(a.dest == "target" for a in p._actions):
        p.add_argument("--target", metavar="COL", help="labels of --calibration (default: as fit)")


def _decision_options(p) -> None:
    p.add_argument("--priors", metavar="SPEC", help="decide under these priors (no refit)")
    p.add_argument("--loss", metavar="FILE", help="decide under this loss matrix (no refit)")
    p.add_argument("--reject-cost", type=float, metavar="C", help="add Chow's reject action")


#: estimator parameters named in the library's messages -> the option that sets them
_FLAGS = {
    "reg_covar": "--reg-covar",
    "discretize": "--discretize",
    "n_bins": "--n-bins",
    "n_components": "--components",
    "max_components": "--max-components",
}


def _with_flags(text: str, command: str) -> str:
    """A library message that asks for a parameter, with the option that sets it."""
    if command not in ("fit", "compare"):
        return text
    named = [flag for key, flag in _FLAGS.items() if key in text]
    if named and not any(flag in text for flag in _FLAGS.values()):
        text += f" (on the command line: {', '.join(named)})"
    return text


def _message(exc: BaseException) -> str:
    """One line for people: file errors by name, everything else by its message."""
    if isinstance(exc, FileNotFoundError) and exc.filename:
        text = f"no such file: {exc.filename}"
    elif isinstance(exc, IsADirectoryError) and exc.filename:
        text = f"{exc.filename} is a folder, not a file"
    elif isinstance(exc, PermissionError) and exc.filename:
        text = f"permission denied: {exc.filename}"
    elif isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


#: errors that come from the input, reported as one line with exit status 2
_PEOPLE = (CLIError, ValueError, TypeError, OSError, ImportError)


def main(argv=None) -> int:
    """Entry point of the ``bayesrule`` command; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for a mistake in the input (reported as one line on stderr),
        1 for an unexpected failure.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 2
    from .progress import Status

    args.status = Status(args.command, quiet=bool(getattr(args, "quiet", False)))
    try:
        handler = importlib.import_module(f".{args.command}", __name__).run  # one module each
        return handler(args) or 0
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        import os

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # stdout is not a real file
            pass
        return 141
    except KeyboardInterrupt:
        print(f"bayesrule {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        if isinstance(exc, _PEOPLE):
            text = _with_flags(_message(exc), args.command)
            print(f"bayesrule {args.command}: error: {text}", file=sys.stderr)
            return 2
        print(
            f"bayesrule {args.command}: error: unexpected {type(exc).__name__}: "
            f"{_message(exc)} (rerun with --debug for the traceback, and report it)",
            file=sys.stderr,
        )
        return 1
