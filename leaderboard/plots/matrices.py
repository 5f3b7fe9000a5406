"""System × system heatmaps, one per aspect with a drop-down between them: win rates, and which
systems are significantly apart."""

from collections.abc import Mapping, Sequence
from typing import Any

from leaderboard.plots.style import Aspects, Json, aspect_buttons, figure
from leaderboard.significance import ALPHA, direction

# One significance matrix: (systems, signs, hover data, cell texts).
SignView = tuple[list[str], list[list[int | None]], list[list[Any]], list[list[str]]]


def _matrix_figure(heatmaps: Sequence[Json], aspects: Aspects, size: int) -> Json:
    """Lay out one heatmap per aspect of systems × systems (``size`` of the largest), a drop-down between them."""
    return figure(
        heatmaps,
        max(360, 140 + 30 * size),
        dict(l=8, r=8, t=48, b=8),
        axes={
            "xaxis": dict(tickangle=-40, showgrid=False, automargin=True, tickfont=dict(size=10)),
            "yaxis": dict(autorange="reversed", showgrid=False, automargin=True, tickfont=dict(size=10)),
        },
        updatemenus=aspect_buttons(aspects, 1),
    )


def win_rate_heatmaps(win_rates: Mapping[str, Json], aspects: Aspects) -> Json:
    """Per aspect, the share of points each row system took from each column system."""
    heatmaps: list[Json] = []
    for index, (code, _name) in enumerate(aspects):
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


# Significance matrices: the row system significantly below (−1) or above (1) the column, or neither.
_SIGN_COLOURS = ("#c0504d", "#eef1f5", "#2f8a55")
_SIGN_SCALE = [[bound, colour] for index, colour in enumerate(_SIGN_COLOURS) for bound in (index / 3, (index + 1) / 3)]
_SIGN_LABELS = ("row below", "not apart", "row above")


def _sign_heatmaps(views: Mapping[str, SignView], aspects: Aspects, hovertemplate: str, legend_title: str) -> Json:
    """One heatmap per aspect of ``views[aspect] = (systems, signs, customdata, texts)``, a drop-down between them."""
    heatmaps: list[Json] = []
    for index, (code, _name) in enumerate(aspects):
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
        for differences, p_values in zip(tests["difference"], tests["p_value"], strict=True):
            signs.append([direction(difference, p) for difference, p in zip(differences, p_values, strict=True)])
            customdata.append([[difference, p] for difference, p in zip(differences, p_values, strict=True)])
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
