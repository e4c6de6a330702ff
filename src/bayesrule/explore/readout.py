"""The explorer's readout at the query point, as HTML (numbers to 4 significant digits,
as the seed prints them)."""

from __future__ import annotations

import html


def readout_html(setting, out: dict) -> str:
    """The readout as an HTML table (numbers to 4 significant digits, as the seed)."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in setting.classes)
    rows = [
        ("p(x|w)", out["likelihoods"]),
        ("P(w)", list(setting.priors)),
        ("P(w|x)", out["posteriors"]),
    ]
    body = "".join(
        f"<tr><td>{name}</td>" + "".join(f"<td>{v:.4g}</td>" for v in values) + "</tr>"
        for name, values in rows
    )
    width = len(setting.classes)
    risks = "".join(
        f"<tr><td>R({html.escape(str(a))}|x)</td><td colspan='{width}'>{r:.4f}</td></tr>"
        for a, r in zip(setting.actions, out["risks"], strict=True)
    )
    x = ", ".join(f"{v:g}" for v in out["x"])
    rule = out.get("neyman_pearson")
    if rule is not None:
        name = html.escape(str(setting.classes[setting.positive]))
        risks += (
            f"<tr><td colspan='{width + 1}'>Neyman-Pearson: {name} where ln p(x|pos)/p(x|neg)"
            f" &gt; {rule['threshold']:.4f}; false alarm {rule['false_alarm']:.4f}, "
            f"detection {rule['detection']:.4f}</td></tr>"
        )
    return (
        f"<b>x = [{x}]</b> evidence p(x) = {out['evidence']:.4e}"
        f"<table class='readout'><tr><th></th>{head}</tr>{body}{risks}</table>"
        f"decision: <b class='decision'>{html.escape(out['decision'])}</b>"
    )
