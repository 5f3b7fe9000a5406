"""The leaderboard's plotly figures, built from plain data and returned as JSON-ready dicts.

No Django here: the page, the JSON refresh and the offline export all draw the same figures,
and each figure's data also goes out as CSV (``leaderboard.exports``). Figures with one view
per aspect carry plotly buttons to switch aspect, so they work unchanged in the static export.
"""

import json

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.ratings import INITIAL_RATING

HUMAN_COLOUR = "#2f5ea8"
METRIC_COLOUR = "#d9822b"
FONT = dict(family='system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif', size=12, color="#1d2330")
# Fifteen distinguishable colours for systems (the radar chart), Ground truth in gold.
SYSTEM_COLOURS = (
    "#2f5ea8", "#d9822b", "#1f7a4d", "#a82f2f", "#7b4fa8", "#2a9d9d", "#b5527f", "#6b7a1f",
    "#4f6d8f", "#c46a2f", "#3f9a5a", "#8f3f5f", "#5a5aa8", "#8a6d3b", "#3b8a8a",
)  # fmt: skip
GROUND_TRUTH_COLOUR = "#b08a00"


def win_rate_matrix(battles):
    """Row system's share of points against the column system (a tie counts half), and battle counts.

    Returns ``{"systems": [...], "rates": [[share or None]], "battles": [[count]]}``; a pair
    that never met has rate None.
    """
    size = len(battles.systems)
    points = np.zeros((size, size))
    counts = np.zeros((size, size), dtype=int)
    np.add.at(points, (battles.a, battles.b), battles.outcome)
    np.add.at(points, (battles.b, battles.a), 1 - battles.outcome)
    np.add.at(counts, (battles.a, battles.b), 1)
    np.add.at(counts, (battles.b, battles.a), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = points / counts
    return {
        "systems": list(battles.systems),
        "rates": [
            [None if count == 0 else float(rate) for rate, count in zip(row, row_counts)]
            for row, row_counts in zip(rates, counts)
        ],
        "battles": counts.tolist(),
    }


def _layout(figure, height, margin, **extra):
    figure.update_layout(
        height=height,
        font=FONT,
        paper_bgcolor="#ffffff",
        plot_bgcolor="#ffffff",
        margin=margin,
        hoverlabel=dict(font=FONT),
        **extra,
    )
    figure.update_xaxes(linecolor="#dde2ea", gridcolor="#eef1f5", zeroline=False)
    figure.update_yaxes(linecolor="#dde2ea", gridcolor="#eef1f5", zeroline=False)
    return figure


def _aspect_buttons(aspects, traces_per_aspect, menu="buttons"):
    """Plotly buttons (or a drop-down ``menu``) showing one aspect's traces at a time."""
    count = len(aspects)
    buttons = []
    for index, (code, name) in enumerate(aspects):
        visible = [position // traces_per_aspect == index for position in range(count * traces_per_aspect)]
        buttons.append(dict(label=name, method="update", args=[{"visible": visible}]))
    return [
        dict(
            type=menu,
            direction="right" if menu == "buttons" else "down",
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


def _as_json(figure):
    return json.loads(figure.to_json())


def _error_bars(entries):
    return dict(
        type="data",
        symmetric=False,
        array=[entry["ci_high"] - entry["rating"] for entry in entries],
        arrayminus=[entry["rating"] - entry["ci_low"] for entry in entries],
        thickness=1.2,
        width=3,
        color="#5d6678",
    )


def rating_bars(human, metric, aspects, method_name):
    """Grouped bars per system, human rating beside metric-battle rating, one view per aspect.

    ``human`` and ``metric`` map aspect → system → ``{"rating", "ci_low", "ci_high"}``; a
    system missing from one side has no bar there.
    """
    figure = go.Figure()
    for index, (code, name) in enumerate(aspects):
        for label, colour, board in (
            ("Human", HUMAN_COLOUR, human.get(code, {})),
            ("GENRES metric battles", METRIC_COLOUR, metric.get(code, {})),
        ):
            systems = list(board)
            entries = [board[system] for system in systems]
            # Bars start at the initial rating, 1000: above it a system won more than it lost.
            figure.add_bar(
                x=systems,
                y=[entry["rating"] - INITIAL_RATING for entry in entries],
                base=INITIAL_RATING,
                customdata=[entry["rating"] for entry in entries],
                error_y=_error_bars(entries),
                name=label,
                marker_color=colour,
                visible=index == 0,
                legendgroup=label,
                showlegend=True,
                hovertemplate="%{x}<br>" + label + f" {method_name}: " + "%{customdata:.0f}<extra></extra>",
            )
    _layout(
        figure,
        420,
        barmode="group",
        updatemenus=_aspect_buttons(aspects, 2),
        yaxis_title=f"{method_name} rating",
        legend=dict(orientation="h", x=1, xanchor="right", y=1.02, yanchor="bottom"),
        margin=dict(l=64, r=16, t=64, b=110),
    )
    figure.update_yaxes(rangemode="normal")
    figure.update_xaxes(tickangle=-30)
    return _as_json(figure)


def rating_vs_score(human, mean_scores, aspects, method_name):
    """Small multiples, one per aspect: human rating (y) against the mean metric score ×100 (x)."""
    figure = make_subplots(
        rows=1, cols=len(aspects), subplot_titles=[name for _, name in aspects], horizontal_spacing=0.045
    )
    for column, (code, name) in enumerate(aspects, start=1):
        board = human.get(code, {})
        scores = mean_scores.get(code, {})
        systems = [system for system in board if scores.get(system) is not None]
        figure.add_scatter(
            x=[100 * scores[system] for system in systems],
            y=[board[system]["rating"] for system in systems],
            mode="markers",
            text=systems,
            marker=dict(size=9, color=HUMAN_COLOUR, line=dict(color="#ffffff", width=1)),
            hovertemplate="%{text}<br>" + name + " score %{x:.1f}<br>human " + method_name + " %{y:.0f}<extra></extra>",
            showlegend=False,
            row=1,
            col=column,
        )
        figure.update_xaxes(title_text="mean score ×100", row=1, col=column)
    figure.update_yaxes(title_text=f"human {method_name}", row=1, col=1)
    _layout(figure, 330, margin=dict(l=64, r=16, t=48, b=56))
    figure.update_annotations(font=dict(size=12))
    return _as_json(figure)


def win_rate_heatmaps(win_rates, aspects):
    """Per aspect, the share of points each row system took from each column system."""
    figure = go.Figure()
    for index, (code, name) in enumerate(aspects):
        matrix = win_rates.get(code, {"systems": [], "rates": [], "battles": []})
        systems = matrix["systems"]
        figure.add_heatmap(
            x=systems,
            y=systems,
            z=matrix["rates"],
            customdata=matrix["battles"],
            zmin=0,
            zmax=1,
            zmid=0.5,
            colorscale="RdBu",
            texttemplate="%{z:.2f}",
            textfont=dict(size=10),
            hovertemplate="%{y} vs %{x}<br>share of points %{z:.2f}<br>%{customdata} battles<extra></extra>",
            colorbar=dict(title=dict(text="row wins", side="right"), thickness=12),
            visible=index == 0,
            xgap=1,
            ygap=1,
        )
    size = max((len(matrix["systems"]) for matrix in win_rates.values()), default=0)
    _layout(
        figure,
        max(360, 140 + 30 * size),
        updatemenus=_aspect_buttons(aspects, 1, menu="dropdown"),
        margin=dict(l=140, r=16, t=64, b=120),
    )
    figure.update_yaxes(autorange="reversed", showgrid=False)
    figure.update_xaxes(tickangle=-30, showgrid=False)
    return _as_json(figure)


def score_profile(rows, aspects):
    """A radar of the five mean scores (×100) of every system; click the legend to compare a few."""
    figure = go.Figure()
    codes = [code for code, _ in aspects]
    names = [name for _, name in aspects]
    colours = iter(SYSTEM_COLOURS * (1 + len(rows) // len(SYSTEM_COLOURS)))
    for row in rows:
        values = [None if row["values"].get(code) is None else 100 * row["values"][code] for code in codes]
        colour = GROUND_TRUTH_COLOUR if row["ground_truth"] else next(colours)
        figure.add_scatterpolar(
            r=values + values[:1],
            theta=names + names[:1],
            name=row["system"],
            line=dict(color=colour, width=2, dash="dot" if row["ground_truth"] else "solid"),
            marker=dict(size=5),
            hovertemplate=row["system"] + "<br>%{theta}: %{r:.1f}<extra></extra>",
        )
    _layout(
        figure,
        520,
        polar=dict(
            radialaxis=dict(range=[0, 100], gridcolor="#e3e7ee", tickfont=dict(size=10)),
            # First aspect at the top: the radial ticks (drawn at 0°) then fall between two aspect
            # names instead of on the first; the legend goes below, clear of the names.
            angularaxis=dict(gridcolor="#e3e7ee", rotation=90, direction="clockwise"),
        ),
        legend=dict(font=dict(size=11), orientation="h", x=0.5, xanchor="center", y=-0.08, yanchor="top"),
        margin=dict(l=70, r=70, t=40, b=40),
    )
    return _as_json(figure)


def replicate_points(replicates, aspects):
    """Per replicate group, the mean ± sample standard deviation as a bar and each run's score
    (×100) as a point drawn over it, one view per aspect (the paper's Figure 4)."""
    figure = go.Figure()
    groups = [group["group"] for group in replicates]
    for index, (code, name) in enumerate(aspects):
        visible = index == 0
        means = [group["mean"][code] for group in replicates]
        spreads = [group["sd"][code] for group in replicates]
        figure.add_scatter(
            x=groups,
            y=[None if mean is None else 100 * mean for mean in means],
            error_y=dict(
                type="data",
                array=[0 if spread is None else 100 * spread for spread in spreads],
                thickness=1.5,
                width=8,
                color=HUMAN_COLOUR,
            ),
            mode="markers",
            name="Mean ± SD over runs",
            marker=dict(color=HUMAN_COLOUR, size=11, symbol="line-ew-open", line=dict(width=3)),
            hovertemplate="%{x}: mean %{y:.1f} ± %{error_y.array:.1f}<extra></extra>",
            visible=visible,
        )
        runs = [(group["group"], run) for group in replicates for run in group["runs"] if run["values"][code] is not None]
        figure.add_scatter(
            x=[group for group, _ in runs],
            y=[100 * run["values"][code] for _, run in runs],
            customdata=[run["seed"] for _, run in runs],
            mode="markers",
            name="Run (seed)",
            marker=dict(color=METRIC_COLOUR, size=8, opacity=0.75, line=dict(color="#ffffff", width=1)),
            hovertemplate="%{x}, seed %{customdata}: %{y:.1f}<extra></extra>",
            visible=visible,
        )
    _layout(
        figure,
        420,
        dict(l=60, r=16, t=56, b=110),
        updatemenus=_aspect_buttons(aspects, 2),
        yaxis_title="Score ×100",
        legend=dict(orientation="h", x=1, xanchor="right", y=1.02, yanchor="bottom"),
    )
    figure.update_xaxes(tickangle=-30, showgrid=False)
    return _as_json(figure)
