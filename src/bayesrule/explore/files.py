"""Files uploaded by the explorer's page (base64 text, as Bokeh's FileInput sends them):
a model file, or a CSV table."""

from __future__ import annotations

from .setting import Setting, setting_of


def load_setting(encoded: str) -> Setting:
    """The setting of a model file uploaded by the page (base64 text): ValueError with
    the reason where it cannot be read or drawn."""
    import base64
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "uploaded.model"
        path.write_bytes(base64.b64decode(encoded or ""))
        return setting_of(path)


def read_table(encoded: str):
    """A CSV file uploaded by the page (base64 text) as a pandas DataFrame; ValueError
    saying why where it cannot be read."""
    import base64
    import io

    import pandas as pd

    try:
        frame = pd.read_csv(io.BytesIO(base64.b64decode(encoded or "")))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a CSV table: {' '.join(str(exc).split())}") from None
    return frame
