"""Rating figures: each system's human rating beside its GENRES metric-battle rating, per aspect
and all aspects at once, and human rating against mean score."""

import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from annotation.ratings import INITIAL_RATING
from leaderboard.plots.style import HUMAN_COLOUR, METRIC_COLOUR, Aspects, Json, aspect_buttons, figure, legend_below

# aspect -> system -> {"rating", "ci_low", "ci_high", ...}
RatingBoards = Mapping[str, Mapping[str, Mapping[str, Any]]]


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
    for index, (code, _name) in enumerate(aspects):
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
    return figure(
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
        updatemenus=aspect_buttons(aspects, 2, orders),
        legend=legend_below(height, margin),
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
    return figure(
        traces,
        height,
        margin,
        axes={
            "xaxis": dict(title=dict(text=f"{method_name} rating (start 1000)")),
            "yaxis": dict(autorange="reversed", automargin=True, tickfont=dict(size=10), dividercolor="#c5ccd8"),
        },
        barmode="group",
        bargap=0.25,
        legend=legend_below(height, margin),
        shapes=[_initial_rating_line()],
    )


def rating_vs_score(
    human: RatingBoards, mean_scores: Mapping[str, Mapping[str, Any]], aspects: Aspects, method_name: str
) -> Json:
    """Small multiples, one per aspect: human rating (y) against the mean metric score ×100 (x),
    each point labelled with its system. The page's script places the labels where they overlap
    nothing at the width shown, leaving a name to the hover where there is no room (the names are
    in customdata, which the hover reads); a phone stacks the panels (static/js/leaderboard.js)."""
    panels = _panels_in_a_row(tuple(name for _, name in aspects))
    # Copies: the cached panels stay as plotly made them.
    axes = {name: dict(settings) for name, settings in panels.items() if name.startswith(("xaxis", "yaxis"))}
    traces: list[Json] = []
    for column, (code, name) in enumerate(aspects, start=1):
        board = human.get(code, {})
        scores = mean_scores.get(code, {})
        systems = sorted(
            (system for system in board if scores.get(system) is not None), key=lambda system: board[system]["rating"]
        )
        suffix = "" if column == 1 else str(column)
        hovertemplate = (
            "%{customdata}<br>" + name + " score %{x:.1f}<br>human " + method_name + " %{y:.0f}<extra></extra>"
        )
        traces.append(
            dict(
                type="scatter",
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                x=[100 * scores[system] for system in systems],
                y=[board[system]["rating"] for system in systems],
                mode="markers+text",
                text=systems,
                customdata=systems,
                textposition="top center",
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
    return figure(traces, 400, dict(l=64, r=16, t=48, b=56), axes, annotations=titles)


@cache
def _panels_in_a_row(titles: tuple[str, ...]) -> Json:
    """The layout of one row of panels titled ``titles``: their axes and titles (plotly's subplots,
    the same at every build and a fifth of a figure's CPU to make)."""
    from plotly.subplots import make_subplots  # here, not at start-up: only leaderboard builds draw

    figure = make_subplots(rows=1, cols=len(titles), subplot_titles=titles, horizontal_spacing=0.045)
    # The template comes with every figure: checking it twice would cost twice.
    return {key: value for key, value in figure.to_dict()["layout"].items() if key != "template"}
