"""The leaderboard's plotly figures, built from plain data and returned as JSON-ready dicts.

No Django here: the page, the JSON refresh and the offline export all draw the same figures,
and each figure's data also goes out as CSV (``leaderboard.exports``). Figures with one view
per aspect carry plotly buttons to switch aspect, so they work unchanged in the static export.
"""

import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from annotation.ratings import INITIAL_RATING
from leaderboard.significance import ALPHA, direction

HUMAN_COLOUR = "#2f5ea8"
METRIC_COLOUR = "#d9822b"
FONT = dict(family='system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif', size=12, color="#1d2330")
# Fifteen distinguishable colours for systems (the radar chart), Ground truth in gold.
SYSTEM_COLOURS = (
    "#2f5ea8", "#d9822b", "#1f7a4d", "#a82f2f", "#7b4fa8", "#2a9d9d", "#b5527f", "#6b7a1f",
    "#4f6d8f", "#c46a2f", "#3f9a5a", "#8f3f5f", "#5a5aa8", "#8a6d3b", "#3b8a8a",
)  # fmt: skip
GROUND_TRUTH_COLOUR = "#b08a00"
AXIS_STYLE = dict(linecolor="#dde2ea", gridcolor="#eef1f5", zeroline=False)

# The figures are drawn from the leaderboard's stored JSON (``leaderboard.contents``) and returned as JSON.
Json = dict[str, Any]
# (code, name) of each aspect shown, in order.
Aspects = Sequence[tuple[str, str]]
# aspect -> system -> {"rating", "ci_low", "ci_high", ...}
RatingBoards = Mapping[str, Mapping[str, Mapping[str, Any]]]
# One significance matrix: (systems, signs, hover data, cell texts).
SignView = tuple[list[str], list[list[int | None]], list[list[Any]], list[list[str]]]


def _figure(
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


def _aspect_buttons(aspects: Aspects, traces_per_aspect: int, layouts: Sequence[Json] | None = None) -> list[Json]:
    """A drop-down showing one aspect's traces at a time (narrow enough for a phone), with the
    aspect's own ``layouts[index]`` changes (an axis order, say) where given."""
    count = len(aspects)
    buttons: list[Json] = []
    for index, (code, name) in enumerate(aspects):
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


def _legend_below(height: int, margin: Mapping[str, int]) -> Json:
    """A legend under the x axis title: above the plot it would sit under plotly's toolbar on a phone."""
    plot_height = height - margin["t"] - margin["b"]
    return dict(orientation="h", x=0, xanchor="left", y=-62 / plot_height, yanchor="top", font=dict(size=11))


def _error_bars(entries: Sequence[Mapping[str, float]]) -> Json:
    """Asymmetric 95% intervals around each entry's rating."""
    return dict(
        type="data",
        symmetric=False,
        array=[entry["ci_high"] - entry["rating"] for entry in entries],
        arrayminus=[entry["rating"] - entry["ci_low"] for entry in entries],
        thickness=1.2,
        width=3,
        color="#5d6678",
    )


def _by_human_rating(human: RatingBoards, metric: RatingBoards, aspect_codes: Sequence[str]) -> list[str]:
    """Systems, best human rating (mean over ``aspect_codes``) first; systems humans never rated last."""
    systems = {system for code in aspect_codes for board in (human, metric) for system in board.get(code, {})}

    def mean_human(system: str) -> float:
        ratings = [human[code][system]["rating"] for code in aspect_codes if system in human.get(code, {})]
        return sum(ratings) / len(ratings) if ratings else -math.inf

    return sorted(systems, key=lambda system: (-mean_human(system), system))


def rating_bars(human: RatingBoards, metric: RatingBoards, aspects: Aspects, method_name: str) -> Json:
    """Per aspect (a drop-down), each system's human rating beside its metric-battle rating, as
    points with their 95% intervals, best human rating on top.

    ``human`` and ``metric`` map aspect → system → ``{"rating", "ci_low", "ci_high"}``; a
    system missing from one side has no point there. Points, not bars from zero: the ratings
    sit near the initial 1000, where bars would all look alike; the dotted line marks 1000.
    """
    traces: list[Json] = []
    orders: list[Json] = []
    for index, (code, name) in enumerate(aspects):
        order = _by_human_rating(human, metric, [code])
        orders.append({"yaxis.categoryarray": order[::-1]})
        for label, colour, symbol, board in (
            ("Human", HUMAN_COLOUR, "circle", human.get(code, {})),
            ("GENRES metric battles", METRIC_COLOUR, "diamond", metric.get(code, {})),
        ):
            systems = [system for system in order if system in board]
            entries = [board[system] for system in systems]
            trace = dict(
                type="scatter",
                x=[entry["rating"] for entry in entries],
                y=systems,
                mode="markers",
                orientation="h",
                marker=dict(size=9, color=colour, symbol=symbol),
                error_x=_error_bars(entries),
                name=label,
                visible=index == 0,
                legendgroup=label,
                hovertemplate="%{y}<br>" + label + f" {method_name}: " + "%{x:.0f}<extra></extra>",
            )
            traces.append(trace)
    first_order = orders[0]["yaxis.categoryarray"] if orders else []
    # A fixed range for every aspect, so switching aspects compares like with like.
    bounds = [
        bound
        for ratings in (human, metric)
        for board in ratings.values()
        for entry in board.values()
        for bound in (entry["ci_low"], entry["ci_high"])
    ] + [INITIAL_RATING]
    pad = 0.05 * (max(bounds) - min(bounds) or 100)
    height, margin = max(320, 170 + 34 * len(first_order)), dict(l=8, r=16, t=48, b=100)
    return _figure(
        traces,
        height,
        margin,
        axes={
            "xaxis": dict(
                range=[min(bounds) - pad, max(bounds) + pad], title=dict(text=f"{method_name} rating (start 1000)")
            ),
            "yaxis": dict(categoryorder="array", categoryarray=first_order, automargin=True),
        },
        scattermode="group",
        scattergap=0.4,
        updatemenus=_aspect_buttons(aspects, 2, orders),
        legend=_legend_below(height, margin),
        shapes=[_initial_rating_line()],
    )


def _initial_rating_line(axis: str = "x") -> Json:
    """A dotted line at the initial rating: right of it a system won more than it lost."""
    across = "y" if axis == "x" else "x"
    return {
        "type": "line",
        "xref": axis if axis == "x" else "paper",
        "yref": "paper" if axis == "x" else axis,
        f"{axis}0": INITIAL_RATING,
        f"{axis}1": INITIAL_RATING,
        f"{across}0": 0,
        f"{across}1": 1,
        "line": {"color": "#8a93a5", "width": 1, "dash": "dot"},
    }


def ratings_by_aspect(human: RatingBoards, metric: RatingBoards, aspects: Aspects, method_name: str) -> Json:
    """Figure 5 of the GENRES paper as one plot: per system (best human rating first), the human
    and the GENRES metric-battle rating of every aspect side by side, bars from the initial 1000
    with their 95% intervals."""
    codes = [code for code, _ in aspects]
    order = _by_human_rating(human, metric, codes)
    traces: list[Json] = []
    for label, colour, ratings in (
        ("Human", HUMAN_COLOUR, human),
        ("GENRES metric battles", METRIC_COLOUR, metric),
    ):
        slots = [
            (system, code, ratings[code][system])
            for system in order
            for code in codes
            if system in ratings.get(code, {})
        ]
        entries = [entry for _, _, entry in slots]
        bars = dict(
            type="bar",
            # Two levels: the system, then the aspect's code within it.
            y=[[system for system, _, _ in slots], [code.upper() for _, code, _ in slots]],
            x=[entry["rating"] - INITIAL_RATING for entry in entries],
            base=INITIAL_RATING,
            orientation="h",
            customdata=[entry["rating"] for entry in entries],
            error_x=_error_bars(entries),
            name=label,
            marker=dict(color=colour),
            hovertemplate="%{y}<br>" + label + f" {method_name}: " + "%{customdata:.0f}<extra></extra>",
        )
        traces.append(bars)
    height, margin = max(320, 140 + 15 * len(order) * len(codes)), dict(l=8, r=16, t=16, b=100)
    return _figure(
        traces,
        height,
        margin,
        axes={
            "xaxis": dict(title=dict(text=f"{method_name} rating (start 1000)")),
            "yaxis": dict(autorange="reversed", automargin=True, tickfont=dict(size=10), dividercolor="#c5ccd8"),
        },
        barmode="group",
        bargap=0.25,
        legend=_legend_below(height, margin),
        shapes=[_initial_rating_line()],
    )


def _label_positions(count: int) -> list[str]:
    """Point labels alternately above and below, so neighbours' names overlap less."""
    return ["top center" if index % 2 == 0 else "bottom center" for index in range(count)]


def rating_vs_score(
    human: RatingBoards, mean_scores: Mapping[str, Mapping[str, Any]], aspects: Aspects, method_name: str
) -> Json:
    """Small multiples, one per aspect: human rating (y) against the mean metric score ×100 (x),
    each point labelled with its system. A phone stacks them (static/js/leaderboard.js)."""
    panels = _panels_in_a_row(tuple(name for _, name in aspects))
    # Copies: the cached panels stay as plotly made them.
    axes = {name: dict(settings) for name, settings in panels.items() if name.startswith(("xaxis", "yaxis"))}
    traces: list[Json] = []
    for column, (code, name) in enumerate(aspects, start=1):
        board = human.get(code, {})
        scores = mean_scores.get(code, {})
        # Sorted by rating: alternating label positions then separate vertical neighbours.
        systems = sorted(
            (system for system in board if scores.get(system) is not None), key=lambda system: board[system]["rating"]
        )
        suffix = "" if column == 1 else str(column)
        hovertemplate = "%{text}<br>" + name + " score %{x:.1f}<br>human " + method_name + " %{y:.0f}<extra></extra>"
        traces.append(
            dict(
                type="scatter",
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                x=[100 * scores[system] for system in systems],
                y=[board[system]["rating"] for system in systems],
                mode="markers+text",
                text=systems,
                textposition=_label_positions(len(systems)),
                textfont=dict(size=9, color="#4a5366"),
                cliponaxis=False,
                marker=dict(size=9, color=HUMAN_COLOUR, line=dict(color="#ffffff", width=1)),
                hovertemplate=hovertemplate,
                showlegend=False,
            )
        )
        axes[f"xaxis{suffix}"]["title"] = dict(text="mean score ×100")
    axes["yaxis"]["title"] = dict(text=f"human {method_name}")
    titles = [{**annotation, "font": dict(size=12)} for annotation in panels.get("annotations", [])]
    return _figure(traces, 400, dict(l=64, r=16, t=48, b=56), axes, annotations=titles)


@cache
def _panels_in_a_row(titles: tuple[str, ...]) -> Json:
    """The layout of one row of panels titled ``titles``: their axes and titles (plotly's subplots,
    the same at every build and a fifth of a figure's CPU to make)."""
    from plotly.subplots import make_subplots  # here, not at start-up: only leaderboard builds draw

    figure = make_subplots(rows=1, cols=len(titles), subplot_titles=titles, horizontal_spacing=0.045)
    # The template comes with every figure: checking it twice would cost twice.
    return {key: value for key, value in figure.to_dict()["layout"].items() if key != "template"}


def _matrix_figure(heatmaps: Sequence[Json], aspects: Aspects, size: int) -> Json:
    """Lay out one heatmap per aspect of systems × systems (``size`` of the largest), a drop-down between them."""
    return _figure(
        heatmaps,
        max(360, 140 + 30 * size),
        dict(l=8, r=8, t=48, b=8),
        axes={
            "xaxis": dict(tickangle=-40, showgrid=False, automargin=True, tickfont=dict(size=10)),
            "yaxis": dict(autorange="reversed", showgrid=False, automargin=True, tickfont=dict(size=10)),
        },
        updatemenus=_aspect_buttons(aspects, 1),
    )


def win_rate_heatmaps(win_rates: Mapping[str, Json], aspects: Aspects) -> Json:
    """Per aspect, the share of points each row system took from each column system."""
    heatmaps: list[Json] = []
    for index, (code, name) in enumerate(aspects):
        matrix = win_rates.get(code, {"systems": [], "rates": [], "battles": []})
        systems = matrix["systems"]
        heatmap = dict(
            type="heatmap",
            x=systems,
            y=systems,
            z=matrix["rates"],
            customdata=matrix["battles"],
            zmin=0,
            zmax=1,
            zmid=0.5,
            colorscale="RdBu",
            # ×100 without decimals: two digits fit a cell even on a phone, where "0.52" would not.
            text=[["" if rate is None else f"{100 * rate:.0f}" for rate in row] for row in matrix["rates"]],
            texttemplate="%{text}",
            textfont=dict(size=11),
            hovertemplate="%{y} vs %{x}<br>share of points %{z:.0%}<br>%{customdata} battles<extra></extra>",
            colorbar=dict(title=dict(text="row wins, %", side="right"), thickness=10, tickformat=".0%"),
            visible=index == 0,
            xgap=1,
            ygap=1,
        )
        heatmaps.append(heatmap)
    size = max((len(matrix["systems"]) for matrix in win_rates.values()), default=0)
    return _matrix_figure(heatmaps, aspects, size)


def score_profile(rows: Sequence[Json], aspects: Aspects) -> Json:
    """A radar of the five mean scores (×100) of every system; click the legend to compare a few."""
    traces: list[Json] = []
    codes = [code for code, _ in aspects]
    # Two-word names on two lines: on a phone one line would run past the plot's edge.
    names = [name.replace(" ", "<br>", 1) for _, name in aspects]
    colours = iter(SYSTEM_COLOURS * (1 + len(rows) // len(SYSTEM_COLOURS)))
    for row in rows:
        values = [None if row["values"].get(code) is None else 100 * row["values"][code] for code in codes]
        colour = GROUND_TRUTH_COLOUR if row["ground_truth"] else next(colours)
        line = dict(
            type="scatterpolar",
            r=values + values[:1],
            theta=names + names[:1],
            name=row["system"],
            line=dict(color=colour, width=2, dash="dot" if row["ground_truth"] else "solid"),
            marker=dict(size=5),
            hovertemplate=row["system"] + "<br>%{theta}: %{r:.1f}<extra></extra>",
        )
        traces.append(line)
    return _figure(
        traces,
        520,
        # Room at the sides for "Uniqueness" and "Completeness" at a phone's width.
        dict(l=84, r=84, t=48, b=40),
        polar=dict(
            radialaxis=dict(range=[0, 100], dtick=25, gridcolor="#e3e7ee", tickfont=dict(size=9)),
            # First aspect at the top: the radial ticks (drawn at 0°) then fall between two aspect
            # names instead of on the first; the legend goes below, clear of the names.
            angularaxis=dict(gridcolor="#e3e7ee", rotation=90, direction="clockwise"),
        ),
        legend=dict(font=dict(size=11), orientation="h", x=0.5, xanchor="center", y=-0.08, yanchor="top"),
    )


# Significance matrices: the row system significantly below (−1) or above (1) the column, or neither.
_SIGN_COLOURS = ("#c0504d", "#eef1f5", "#2f8a55")
_SIGN_SCALE = [[bound, colour] for index, colour in enumerate(_SIGN_COLOURS) for bound in (index / 3, (index + 1) / 3)]
_SIGN_LABELS = ("row below", "not apart", "row above")


def _sign_heatmaps(views: Mapping[str, SignView], aspects: Aspects, hovertemplate: str, legend_title: str) -> Json:
    """One heatmap per aspect of ``views[aspect] = (systems, signs, customdata, texts)``, a drop-down between them."""
    heatmaps: list[Json] = []
    for index, (code, name) in enumerate(aspects):
        systems, signs, customdata, texts = views.get(code, ([], [], [], []))
        heatmap = dict(
            type="heatmap",
            x=systems,
            y=systems,
            z=signs,
            customdata=customdata,
            text=texts,
            texttemplate="%{text}",
            textfont=dict(size=10),
            zmin=-1,
            zmax=1,
            colorscale=_SIGN_SCALE,
            hovertemplate=hovertemplate,
            colorbar=dict(
                title=dict(text=legend_title, side="right"),
                tickvals=[-2 / 3, 0, 2 / 3],
                ticktext=list(_SIGN_LABELS),
                thickness=12,
            ),
            visible=index == 0,
            xgap=1,
            ygap=1,
        )
        heatmaps.append(heatmap)
    size = max((len(view[0]) for view in views.values()), default=0)
    return _matrix_figure(heatmaps, aspects, size)


def significance_heatmaps(score_tests: Mapping[str, Json], aspects: Aspects) -> Json:
    """Per aspect, which system's mean score is significantly above which (paired tests, Holm-corrected).

    ``score_tests`` maps aspect → ``leaderboard.significance.score_significance`` output.
    """
    views: dict[str, SignView] = {}
    for code, tests in score_tests.items():
        signs: list[list[int | None]] = []
        customdata: list[list[Any]] = []
        texts: list[list[str]] = []
        for differences, p_values in zip(tests["difference"], tests["p_value"]):
            signs.append([direction(difference, p) for difference, p in zip(differences, p_values)])
            customdata.append([[difference, p] for difference, p in zip(differences, p_values)])
            texts.append(["" if difference is None else f"{100 * difference:+.1f}" for difference in differences])
        views[code] = (tests["systems"], signs, customdata, texts)
    return _sign_heatmaps(
        views,
        aspects,
        "%{y} − %{x}<br>mean difference ×100 %{text}<br>Holm-adjusted p %{customdata[1]:.4f}<extra></extra>",
        f"paired test, α {ALPHA:g}",
    )


def separation_heatmaps(separation: Mapping[str, Json], aspects: Aspects, method_name: str) -> Json:
    """Per aspect, which human ratings are apart: their 95% intervals do not overlap."""
    views: dict[str, SignView] = {
        code: (
            matrix["systems"],
            matrix["separated"],
            matrix["difference"],
            [["" if value is None else f"{value:+.0f}" for value in row] for row in matrix["difference"]],
        )
        for code, matrix in separation.items()
    }
    return _sign_heatmaps(
        views,
        aspects,
        "%{y} − %{x}<br>" + method_name + " difference %{text}<extra></extra>",
        "95% intervals",
    )


def replicate_points(replicates: Sequence[Json], aspects: Aspects) -> Json:
    """Per replicate group, the mean ± sample standard deviation as a bar and each run's score
    (×100) as a point drawn over it, one view per aspect (the paper's Figure 4)."""
    traces: list[Json] = []
    groups = [group["group"] for group in replicates]
    for index, (code, name) in enumerate(aspects):
        visible = index == 0
        means = [group["mean"][code] for group in replicates]
        spreads = [group["sd"][code] for group in replicates]
        mean_bars = dict(
            type="scatter",
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
        runs = [
            (group["group"], run) for group in replicates for run in group["runs"] if run["values"][code] is not None
        ]
        points = dict(
            type="scatter",
            x=[group for group, _ in runs],
            y=[100 * run["values"][code] for _, run in runs],
            customdata=[run["seed"] for _, run in runs],
            mode="markers",
            name="Run (seed)",
            marker=dict(color=METRIC_COLOUR, size=8, opacity=0.75, line=dict(color="#ffffff", width=1)),
            hovertemplate="%{x}, seed %{customdata}: %{y:.1f}<extra></extra>",
            visible=visible,
        )
        traces += [mean_bars, points]
    margin = dict(l=60, r=16, t=56, b=140)
    return _figure(
        traces,
        440,
        margin,
        axes={"xaxis": dict(tickangle=-30, showgrid=False), "yaxis": dict(title=dict(text="Score ×100"))},
        updatemenus=_aspect_buttons(aspects, 2),
        legend=_legend_below(440, margin),
    )
