"""The look every leaderboard figure shares, and ``figure``, the one place a figure is made."""

import json
from collections.abc import Mapping, Sequence
from typing import Any

HUMAN_COLOUR = "#2f5ea8"
METRIC_COLOUR = "#d9822b"
FONT = dict(family='system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif', size=12, color="#1d2330")
AXIS_STYLE = dict(linecolor="#dde2ea", gridcolor="#eef1f5", zeroline=False)

# The figures are drawn from the leaderboard's stored JSON (``leaderboard.contents``) and returned as JSON.
Json = dict[str, Any]
# (code, name) of each aspect shown, in order.
Aspects = Sequence[tuple[str, str]]


def figure(
    traces: Sequence[Json], height: int, margin: Mapping[str, int], axes: Mapping[str, Json] | None = None, **extra: Any
) -> Json:
    """``traces`` in the page's style, as JSON: ``axes`` maps each axis ("xaxis", "yaxis2"…) to its
    own settings, beside the style every axis shares (default: one x and one y axis); ``extra``
    is the rest of the layout.

    The figure is made as plain dicts and handed to plotly once, which checks and writes it:
    plotly's add_* and update_* methods walk the whole figure at every call, and were three
    quarters of a figure's CPU (a leaderboard build draws nine figures after a new judgement).
    """
    import plotly.graph_objects as go  # here, not at start-up: only leaderboard builds draw

    axes = axes or {"xaxis": {}, "yaxis": {}}
    layout = {
        "height": height,
        "font": FONT,
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "margin": margin,
        "hoverlabel": dict(font=FONT),
        **{name: {**AXIS_STYLE, **settings} for name, settings in axes.items()},
        **extra,
    }
    return json.loads(go.Figure(data=list(traces), layout=layout).to_json())


def aspect_buttons(aspects: Aspects, traces_per_aspect: int, layouts: Sequence[Json] | None = None) -> list[Json]:
    """A drop-down showing one aspect's traces at a time (narrow enough for a phone), with the
    aspect's own ``layouts[index]`` changes (an axis order, say) where given."""
    count = len(aspects)
    buttons: list[Json] = []
    for index, (_code, name) in enumerate(aspects):
        visible = [position // traces_per_aspect == index for position in range(count * traces_per_aspect)]
        args = [{"visible": visible}, layouts[index]] if layouts else [{"visible": visible}]
        buttons.append(dict(label=name, method="update", args=args))
    return [
        dict(
            type="dropdown",
            direction="down",
            buttons=buttons,
            x=0,
            xanchor="left",
            y=1.02,
            yanchor="bottom",
            pad=dict(r=4, t=0),
            bgcolor="#f5f7fa",
            bordercolor="#dde2ea",
            font=dict(size=11),
            showactive=True,
        )
    ]


def legend_below(height: int, margin: Mapping[str, int]) -> Json:
    """A legend under the x axis title: above the plot it would sit under plotly's toolbar on a phone."""
    plot_height = height - margin["t"] - margin["b"]
    return dict(orientation="h", x=0, xanchor="left", y=-62 / plot_height, yanchor="top", font=dict(size=11))
