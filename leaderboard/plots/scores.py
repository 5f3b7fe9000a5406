"""Score figures: each system's profile of mean scores, and the scores of replicate runs."""

from collections.abc import Sequence

from leaderboard.plots.style import HUMAN_COLOUR, METRIC_COLOUR, Aspects, Json, aspect_buttons, figure, legend_below

# Fifteen distinguishable colours for systems (the radar chart), Ground truth in gold.
SYSTEM_COLOURS = (
    "#2f5ea8", "#d9822b", "#1f7a4d", "#a82f2f", "#7b4fa8", "#2a9d9d", "#b5527f", "#6b7a1f",
    "#4f6d8f", "#c46a2f", "#3f9a5a", "#8f3f5f", "#5a5aa8", "#8a6d3b", "#3b8a8a",
)  # fmt: skip
GROUND_TRUTH_COLOUR = "#b08a00"


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
    return figure(
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


def replicate_points(replicates: Sequence[Json], aspects: Aspects) -> Json:
    """Per replicate group, the mean ± sample standard deviation as a bar and each run's score
    (×100) as a point drawn over it, one view per aspect (the paper's Figure 4)."""
    traces: list[Json] = []
    groups = [group["group"] for group in replicates]
    for index, (code, _name) in enumerate(aspects):
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
    return figure(
        traces,
        440,
        margin,
        axes={"xaxis": dict(tickangle=-30, showgrid=False), "yaxis": dict(title=dict(text="Score ×100"))},
        updatemenus=aspect_buttons(aspects, 2),
        legend=legend_below(440, margin),
    )
