"""The explorer's page: a Bokeh document over a :class:`~.setting.Setting`.

Every change of a widget (a prior, a loss entry, the reject cost, a variance, a dragged
mean) makes a new setting; figure and readout are recomputed from it by bayesrule on
the server (``redraw``). Widgets carry ``name``s (``prior-<class>``, ``reject``,
``loss-<action>-<class>``, ``readout``...) for tests to drive the page through BokehJS.
"""

from __future__ import annotations

import html
import time

import numpy as np

from .export import export_controls
from .files import load_setting, read_table
from .readout import readout_html
from .setting import Setting, fruit_setting, setting_from_table

#: colours of up to four classes, and of the reject action
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
REJECT_COLOUR = "#7f7f7f"


def build(doc, setting: Setting | None = None, table=None) -> None:
    """Lay out the explorer for ``setting`` (default the fruit) in the Bokeh ``doc``."""
    from bokeh.events import Tap
    from bokeh.layouts import column, row
    from bokeh.models import (
        Checkbox,
        ColumnDataSource,
        Div,
        FileInput,
        LinearColorMapper,
        NumericInput,
        PointDrawTool,
        RadioButtonGroup,
        Select,
        Slider,
    )
    from bokeh.plotting import figure

    s = setting or fruit_setting()
    K = len(s.classes)
    x0, x1, y0, y1 = s.bounds
    # the seed's point for the fruit, else the middle of the figure
    start = (
        [170.0, 585.0] if s.features == fruit_setting().features else [(x0 + x1) / 2, (y0 + y1) / 2]
    )
    state = {"setting": s, "query": start, "busy": False}

    def rebuild(setting, table=None):
        """The page for another setting, after this callback (the old widgets leave
        the page first)."""
        doc.add_next_tick_callback(lambda: (doc.clear(), build(doc, setting, table)))

    def class_index(label) -> int:
        return [str(c) for c in state["setting"].classes].index(label)

    plot = figure(
        x_range=(x0, x1),
        y_range=(y0, y1),
        width=620,
        height=500,
        x_axis_label=s.features[0],
        y_axis_label=s.features[1],
        tools="pan,wheel_zoom,reset,save",
        output_backend="canvas",
        name="figure",
    )
    mapper = LinearColorMapper(palette=[*COLOURS[:K], REJECT_COLOUR], low=-0.5, high=K + 0.5)
    image = ColumnDataSource({"image": [np.zeros((2, 2))]})
    plot.image(
        "image", source=image, x=x0, y=y0, dw=x1 - x0, dh=y1 - y0, color_mapper=mapper, alpha=0.45
    )
    if s.points:
        X, y = s.points
        for k, c in enumerate(s.classes):
            rows = np.asarray(y) == c
            plot.scatter(X[rows, 0], X[rows, 1], size=3, color=COLOURS[k], alpha=0.6)
    means = ColumnDataSource(
        {
            "x": s.means[:, 0],
            "y": s.means[:, 1],
            "colour": list(COLOURS[:K]),
            "label": list(s.classes),
        }
    )
    drawn = plot.scatter(
        "x", "y", source=means, size=14, color="colour", line_color="black", marker="circle"
    )
    drag = PointDrawTool(renderers=[drawn], add=False, drag=True)
    plot.add_tools(drag)
    plot.toolbar.active_tap = drag
    query = ColumnDataSource({"x": [state["query"][0]], "y": [state["query"][1]]})
    plot.scatter("x", "y", source=query, size=12, marker="x", color="black", line_width=3)

    view = RadioButtonGroup(labels=["regions", "posterior", "risk"], active=0, name="view")
    how_many = Select(title="classes", value=str(K), options=["2", "3", "4"], name="n-classes")

    def on_how_many(attr, old, new):
        rebuild(s_now().with_classes(int(new)))

    how_many.on_change("value", on_how_many)
    mode = RadioButtonGroup(labels=["simple", "advanced"], active=1, name="mode")
    priors = [
        Slider(start=0, end=1, step=0.01, value=float(p), title=f"P({c})", name=f"prior-{c}")
        for c, p in zip(s.classes, s.priors, strict=True)
    ]
    loss = [
        [
            NumericInput(
                value=float(s.loss[a, k]),
                low=0,
                mode="float",
                width=70,
                name=f"loss-{s.classes[a]}-{s.classes[k]}",
            )
            for k in range(K)
        ]
        for a in range(K)
    ]
    use_reject = Checkbox(
        label="reject action, cost", active=s.reject_cost is not None, name="use-reject"
    )
    reject = NumericInput(
        value=s.reject_cost if s.reject_cost is not None else 0.2,
        low=0,
        mode="float",
        width=70,
        name="reject",
    )
    chosen = Select(
        title="class", value=str(s.classes[0]), options=[str(c) for c in s.classes], name="class"
    )
    sd = [  # a class's standard deviation along each feature
        Slider(
            start=1,
            end=4 * float(np.sqrt(s.covariances[:, i, i].max())),
            step=0.5,
            value=1,
            title=f"sd of {s.features[i]}",
            name=f"sd-{axis}",
        )
        for i, axis in enumerate("xy")
    ]
    spread = {
        "sx": sd[0],
        "sy": sd[1],
        "r": Slider(start=-0.95, end=0.95, step=0.05, value=0, title="correlation", name="corr"),
    }
    qx, qy = (
        NumericInput(
            value=state["query"][i],
            mode="float",
            title=f"query {s.features[i]}",
            width=110,
            name=f"query-{axis}",
        )
        for i, axis in enumerate("xy")
    )
    readout = Div(text="", name="readout", width=420)
    timing = Div(text="", name="timing")
    message = Div(text="", name="message", styles={"color": "#b00"})
    upload = FileInput(accept=".model", name="model-file", title="load a model file")

    def on_upload(attr, old, new):  # the file name arrives after the contents
        try:
            loaded = load_setting(upload.value)
        except Exception as exc:  # any file: a message in the page, never a traceback
            message.text = html.escape(f"{new}: {exc}")
            return
        rebuild(loaded)

    upload.on_change("filename", on_upload)
    csv_input = FileInput(accept=".csv", name="csv-file", title="or a CSV table")
    columns = [] if table is None else [str(c) for c in table[0].columns]
    chosen_columns = ("", "", "") if table is None else tuple(map(str, table[1]))
    pick = [
        Select(title=t, value=v, options=columns, name=n, visible=table is not None, width=120)
        for t, v, n in zip(
            ("x", "y", "classes"), chosen_columns, ("csv-x", "csv-y", "csv-label"), strict=True
        )
    ]

    def show_table(frame, x=None, y=None, label=None):
        try:
            loaded, names = setting_from_table(frame, x, y, label)
        except Exception as exc:  # any table: a message in the page
            message.text = html.escape(str(exc))
            return
        rebuild(loaded, (frame, names))

    def on_csv(attr, old, new):
        try:
            frame = read_table(csv_input.value)
        except Exception as exc:
            message.text = html.escape(f"{new}: {exc}")
            return
        show_table(frame)

    csv_input.on_change("filename", on_csv)
    for widget in pick:
        widget.on_change("value", lambda a, o, n: show_table(table[0], *(w.value for w in pick)))

    def load_spread():
        cov = s_now().covariances[class_index(chosen.value)]
        sx, sy = np.sqrt(cov[0, 0]), np.sqrt(cov[1, 1])
        state["busy"] = True
        spread["sx"].value, spread["sy"].value = float(sx), float(sy)
        spread["r"].value = float(np.clip(cov[0, 1] / (sx * sy), -0.95, 0.95))
        state["busy"] = False

    def s_now() -> Setting:
        return state["setting"]

    def redraw():
        start = time.perf_counter()
        setting = s_now()
        try:
            grid = setting.grid()
            out = setting.readout(state["query"])
        except (ValueError, np.linalg.LinAlgError) as exc:
            message.text = html.escape(str(exc))
            return
        message.text = ""
        picture = {0: grid["decision"], 1: grid["posterior"], 2: grid["risk"]}[view.active]
        if view.active == 0:
            mapper.palette, mapper.low, mapper.high = [*COLOURS[:K], REJECT_COLOUR], -0.5, K + 0.5
        else:
            from bokeh.palettes import Viridis256

            mapper.palette, mapper.low, mapper.high = (
                Viridis256,
                float(picture.min()),
                float(picture.max()) or 1.0,
            )
        image.data = {"image": [picture.astype(float)]}
        readout.text = readout_html(setting, out)
        timing.text = f"computed in {1000 * (time.perf_counter() - start):.0f} ms"

    def change(**fields):
        from dataclasses import replace

        state["setting"] = replace(s_now(), **fields)
        redraw()

    def on_prior(k):
        def handler(attr, old, new):
            if state["busy"]:
                return
            state["setting"] = s_now().with_prior(k, new)
            state["busy"] = True
            for j, slider in enumerate(priors):
                slider.value = float(s_now().priors[j])
            state["busy"] = False
            redraw()

        return handler

    for k, slider in enumerate(priors):
        slider.on_change("value", on_prior(k))

    def on_loss(attr, old, new):
        values = np.array([[max(0.0, float(w.value or 0.0)) for w in row_] for row_ in loss])
        change(loss=values)

    for row_ in loss:
        for w in row_:
            w.on_change("value", on_loss)

    def on_reject(attr, old, new):
        cost = float(reject.value or 0.0) if use_reject.active else None
        change(reject_cost=cost)

    use_reject.on_change("active", on_reject)
    reject.on_change("value", on_reject)

    def on_spread(attr, old, new):
        if state["busy"]:
            return
        k = class_index(chosen.value)
        sx, sy, r = spread["sx"].value, spread["sy"].value, spread["r"].value
        covs = np.array(s_now().covariances, dtype=float)
        covs[k] = [[sx * sx, r * sx * sy], [r * sx * sy, sy * sy]]
        change(covariances=covs)

    for slider in spread.values():
        slider.on_change("value", on_spread)
    chosen.on_change("value", lambda attr, old, new: load_spread())

    def on_means(attr, old, new):
        xs, ys = list(means.data["x"]), list(means.data["y"])
        if len(xs) != K:
            return
        change(means=np.column_stack([xs, ys]).astype(float))

    means.on_change("data", on_means)

    def set_query(x, y):
        state["query"] = [float(x), float(y)]
        query.data = {"x": [float(x)], "y": [float(y)]}
        state["busy"] = True
        qx.value, qy.value = float(x), float(y)
        state["busy"] = False
        redraw()

    plot.on_event(Tap, lambda event: set_query(event.x, event.y))
    qx.on_change("value", lambda a, o, n: None if state["busy"] else set_query(qx.value, qy.value))
    qy.on_change("value", lambda a, o, n: None if state["busy"] else set_query(qx.value, qy.value))
    view.on_change("active", lambda a, o, n: redraw())

    loss_grid = column(
        Div(text="loss L(action, class): rows actions, columns classes"),
        *[row(Div(text=str(s.classes[a]), width=80), *loss[a]) for a in range(K)],
    )
    reject_row = row(use_reject, reject)  # the one loss of the simple mode
    use_np = Checkbox(label="Neyman-Pearson, false alarm at most", active=False, name="use-np")
    bound = NumericInput(value=0.05, low=0.001, high=0.999, mode="float", width=70, name="np-bound")
    positive = Select(
        title="detect",
        value=str(s.classes[0]),
        options=[str(c) for c in s.classes],
        name="np-positive",
    )

    def on_np(attr, old, new):
        alpha = float(bound.value or 0.05) if use_np.active else None
        change(false_alarm=alpha, positive=class_index(positive.value))

    for widget, prop in ((use_np, "active"), (bound, "value"), (positive, "value")):
        widget.on_change(prop, on_np)
    np_row = column(row(use_np, bound), positive, visible=K == 2)
    advanced = column(loss_grid, chosen, *spread.values())

    def on_mode(attr, old, new):
        advanced.visible = mode.active == 1

    mode.on_change("active", on_mode)
    controls = column(
        upload,
        csv_input,
        row(*pick),
        message,
        row(mode, how_many),
        view,
        *priors,
        reject_row,
        np_row,
        advanced,
        row(qx, qy),
        readout,
        timing,
    )
    load_spread()
    redraw()
    doc.add_root(row(plot, column(controls, export_controls(plot, s_now))))
    doc.title = "bayesrule explore"
