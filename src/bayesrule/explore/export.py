"""Exporting from the explorer: the current setting as a model file (written by
:func:`bayesrule.io.save` on the server, handed to the browser as a download), and the
figure's format for Bokeh's save tool (PNG, or SVG)."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path

#: the browser's side of a download: the file's bytes arrive base64-encoded in a data
#: source, and an anchor with ``download`` saves them (no other script is involved)
DOWNLOAD = """
const text = source.data.data[0];
if (!text) { return; }
const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const url = URL.createObjectURL(new Blob([bytes], {type: "application/octet-stream"}));
const link = document.createElement("a");
link.href = url;
link.download = source.data.name[0];
document.body.appendChild(link);
link.click();
link.remove();
"""


def model_bytes(setting) -> bytes:
    """The setting's classifier as the bytes of a model file."""
    from ..io import save

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "setting.model"
        save(setting.model(), path)
        return path.read_bytes()


def export_controls(plot, current):
    """A button that downloads ``current()``'s model file, and a choice of the figure's
    format for the save tool (SVG switches the figure to Bokeh's SVG backend)."""
    from bokeh.layouts import column
    from bokeh.models import Button, ColumnDataSource, CustomJS, Select

    payload = ColumnDataSource({"data": [""], "name": [""]}, name="export-payload")
    # the payload rides on the button's tags: reachable, so it is part of the document
    button = Button(label="export the setting as a model file", name="export-model", tags=[payload])
    fmt = Select(
        title="figure format (save tool)", value="png", options=["png", "svg"], name="figure-format"
    )

    def on_export():
        text = base64.b64encode(model_bytes(current())).decode()
        payload.data = {"data": [text], "name": ["bayesrule-explore.model"]}

    button.on_click(on_export)
    payload.js_on_change("data", CustomJS(args={"source": payload}, code=DOWNLOAD))

    def on_format(attr, old, new):
        plot.output_backend = "svg" if new == "svg" else "canvas"

    fmt.on_change("value", on_format)
    return column(button, fmt)
