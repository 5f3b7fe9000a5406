"""Everything a dataset leaderboard shows, as one JSON-ready dict.

Built by ``leaderboard.jobs`` (never in a request) from three parts: the human side
(``leaderboard.human``), the GENRES scores of one scoring setting (``leaderboard.metrics``) and
the metric-battle ratings of those scores at one margin; then compared, plotted, worded.
"""

import math
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import Any, TypeVar

from django.core.cache import cache

from annotation.agreement import A, B
from annotation.models import ASPECTS
from annotation.ratings import BOOTSTRAP_ROUNDS
from annotation.triple_checks.models import TripleCheck
from annotation.triple_checks.queries import judge_report
from leaderboard import human, metrics, significance
from leaderboard.correlation import item_agreement, rank_correlation
from leaderboard.metric_battles import DEFAULT_MARGIN, metric_battles, metric_labels
from leaderboard.plots.matrices import separation_heatmaps, significance_heatmaps, win_rate_heatmaps
from leaderboard.plots.ratings import rating_bars, rating_vs_score, ratings_by_aspect
from leaderboard.plots.scores import replicate_points, score_profile
from leaderboard.replicates import replicate_groups
from scoring.genres import aspects
from scoring.models import Dataset
from scoring.models.runs import ScoringRun

ASPECT_NAMES = [(aspect.code, aspect.name) for aspect in aspects.ASPECTS]
METHODS = {"elo": "Elo", "bt": "Bradley–Terry"}
# What ``Builder.leaderboard`` tells its ``progress``, at most: human ratings, scores, the metric
# battles of each aspect (not when kept from an earlier build), tables and figures.
STEPS = 3 + len(ASPECTS)
DEFAULT_METHOD = "elo"
# Metric battles number every text × system pair (84,000 per aspect for 15 systems on 800 texts):
# their intervals are narrow, and 200 rounds pin them at a fifth of the cost of 1,000.
METRIC_BOOTSTRAP_ROUNDS = 200
MARGIN_STEP = 0.05
# Kendall τ (mean over aspects) from which the index calls the rankings in agreement, or partly.
AGREE_TAU, PARTLY_AGREE_TAU = 0.5, 0.0
# The GENRES-side parts kept between builds (see Builder): keyed by the scores' version, so a
# finished run or a new upload makes new keys; the old ones expire.
SCORE_PARTS_KEPT_FOR = 24 * 3600
# Part of their keys: raised whenever a kept part's layout changes, so that a build never reads
# a part an older version of the app stored (2: the scores name their unscored systems).
KEPT_LAYOUT = 2
# JSON-ready parts of a leaderboard (see docs/leaderboard.md).
Data = dict[str, Any]
Kept = TypeVar("Kept")


class LeaderboardError(ValueError):
    """A request for a leaderboard that cannot be answered; the message says why."""


def parse_margin(value: str | None) -> float:
    """The margin asked for, on the page's 0.05 grid in [0, 1]; the default when not given."""
    if value in (None, ""):
        return DEFAULT_MARGIN
    try:
        margin = float(value)
    except ValueError:
        raise LeaderboardError(f"The margin must be a number between 0 and 1, not {str(value)[:20]!r}.") from None
    if not (math.isfinite(margin) and 0 <= margin <= 1):
        raise LeaderboardError(f"The margin must be between 0 and 1, not {str(value)[:20]}.")
    return round(round(margin / MARGIN_STEP) * MARGIN_STEP, 2)


def check_setting(dataset: Dataset, key: str) -> None:
    """Raise :class:`LeaderboardError` unless ``key`` is the setting of a finished run on ``dataset``."""
    if key and not ScoringRun.objects.filter(dataset=dataset, status=ScoringRun.Status.DONE, fingerprint=key).exists():
        raise unknown_setting(key)


def unknown_setting(key: str) -> LeaderboardError:
    return LeaderboardError(f"No scoring results with the setting {key[:70]!r} on this dataset.")


def pick_setting(settings: list[Data], key: str | None) -> Data | None:
    """The scoring setting named by ``key`` (its fingerprint), or the newest one; None when unscored."""
    if not settings:
        if key:
            raise LeaderboardError("This dataset has no scoring results yet.")
        return None
    if not key:
        return settings[0]
    for setting in settings:
        if setting["key"] == key:
            return setting
    raise unknown_setting(key)


class Builder:
    """Builds leaderboards of one dataset, each part once however many variants are asked for.

    The human side is shared by every variant, the scores by the variants of one setting; only
    the metric-battle ratings differ by margin.

    With ``scores_version`` (``leaderboard.jobs``' digest of ``metrics.scores_version``), the
    scores of a setting and their figures are also kept in the cache for the next build: a new
    judgement, the usual change under load, leaves them as they are, and reading the per-text
    scores and drawing those figures was a third of a build.
    """

    def __init__(
        self,
        dataset: Dataset,
        metric_ratings: Mapping[tuple[str, float], Data] | None = None,
        score_tests: Mapping[str, Data | None] | None = None,
        scores_version: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        """``metric_ratings``: ``{(setting key, margin): ratings}`` still current, from an earlier build;
        ``score_tests``: ``{setting key: intervals and tests}`` likewise. ``progress(step)`` is told
        each of the ``STEPS`` of a leaderboard as it starts (a page waiting for a variant shows them)."""
        self.dataset = dataset
        self.progress = progress or (lambda step: None)
        self.settings = metrics.scoring_settings(dataset)
        self.scores_version = scores_version
        self._scores: dict[str, Data | None] = {}
        self._score_figures: dict[str, Data] = {}
        self._score_tests = dict(score_tests or {})
        self._metric_ratings = dict(metric_ratings or {})

    def _kept(self, part: str, setting_key: str, compute: Callable[[], Kept]) -> Kept:
        """One GENRES-side ``part`` of a setting, from the cache while the scores are unchanged."""
        if self.scores_version is None:
            return compute()
        key = f"leaderboard:kept:{KEPT_LAYOUT}:{part}:{self.dataset.pk}:{setting_key}:{self.scores_version}"
        value = cache.get(key)
        if value is None:
            value = compute()
            cache.set(key, value, SCORE_PARTS_KEPT_FOR)
        return value

    @cached_property
    def human_side(self) -> Data:
        return human.human_side(self.dataset)

    @cached_property
    def triple_checks(self) -> Data | None:
        """Judges against the humans' labels of single triples; None without a triple-check campaign."""
        if not TripleCheck.objects.filter(dataset=self.dataset).exists():
            return None
        return judge_report(self.dataset)

    def scores(self, setting: Data | None) -> Data | None:
        if setting is None:
            return None
        key = setting["key"]
        if key not in self._scores:
            self._scores[key] = self._kept("scores", key, lambda: metrics.metric_scores(self.dataset, key))
        return self._scores[key]

    def score_figures(self, setting: Data | None) -> Data:
        """The figures drawn from one setting's scores alone, shared by all its margins."""
        key = setting["key"] if setting else ""
        if key not in self._score_figures:
            scores = self.scores(setting)
            rows = scores["rows"] if scores else []
            tests = self.score_tests(setting)
            self._score_figures[key] = self._kept("score-figures", key, lambda: figures_of_scores(rows, tests))
        return self._score_figures[key]

    def score_tests(self, setting: Data | None) -> Data | None:
        """The intervals and paired tests of one setting's scores, shared by all its margins."""
        if setting is None:
            return None
        if setting["key"] not in self._score_tests:
            scores = self.scores(setting)
            self._score_tests[setting["key"]] = significance_of_scores(scores) if scores else None
        return self._score_tests[setting["key"]]

    def leaderboard(self, setting_key: str | None = None, margin: float = DEFAULT_MARGIN) -> Data:
        """The whole leaderboard for one scoring setting (the newest when not given) and margin."""
        setting = pick_setting(self.settings, setting_key)
        self.progress("human ratings")
        human_side = self.human_side
        self.progress("scores")
        scores = self.scores(setting)
        metric_ratings = None
        if setting and scores:
            key = (setting["key"], margin)
            if key not in self._metric_ratings:
                self._metric_ratings[key] = rate_metric_battles(scores, margin, self.progress)
            metric_ratings = self._metric_ratings[key]
        self.progress("tables and figures")
        data = assemble(
            self.dataset, self.settings, setting, margin, human_side, scores, metric_ratings,
            self.score_tests(setting), self.score_figures(setting),
        )  # fmt: skip
        data["triple_checks"] = self.triple_checks
        return data

    def summary(self, data: Data) -> Data:
        """What the leaderboards index shows of the dataset, from its newest leaderboard ``data``."""
        return {
            "runs": ScoringRun.objects.filter(dataset=self.dataset, status=ScoringRun.Status.DONE).count(),
            "campaigns": len(data["human"]["campaigns"]),
            "judgements": data["human"]["judgements"],
            "verdict": data["verdict"],
        }


def leaderboard(dataset: Dataset, setting_key: str | None = None, margin: float = DEFAULT_MARGIN) -> Data:
    """The whole leaderboard of ``dataset`` for one scoring setting and margin (see docs/leaderboard.md)."""
    return Builder(dataset).leaderboard(setting_key, margin)


def rate_metric_battles(scores: Data, margin: float, progress: Callable[[str], None] | None = None) -> Data:
    """Per aspect, both methods' ratings of the metric battles between the scored systems
    (``progress`` is told each aspect as it starts)."""
    systems = [row["system"] for row in scores["rows"]]
    rated: dict[str, Data] = {method: {} for method in METHODS}
    for aspect in ASPECTS:
        if progress:
            progress(f"metric battles of {dict(ASPECT_NAMES)[aspect].lower()}")
        battles = metric_battles(scores["per_text"][aspect], systems, margin)
        for method, board in human.rate(battles, METRIC_BOOTSTRAP_ROUNDS).items():
            rated[method][aspect] = board
    return rated


def significance_of_scores(scores: Data) -> Data:
    """Per aspect, bootstrap intervals of the means, paired tests and tied ranks (``leaderboard.significance``)."""
    systems = [row["system"] for row in scores["rows"]]
    return {aspect: significance.score_significance(scores["per_text"][aspect], systems) for aspect in ASPECTS}


def human_separation(human_ratings: Data) -> Data:
    """Per method and aspect, which human ratings are apart: their 95% intervals do not overlap."""
    return {
        method: {aspect: significance.interval_separation(board) for aspect, board in by_aspect.items()}
        for method, by_aspect in human_ratings.items()
    }


def score_ranks(mean_scores: Mapping[str, float | None]) -> dict[str, int]:
    """Ranks by mean score, 1 for the highest; equal scores share the better rank."""
    from scipy.stats import rankdata  # here, not at start-up: 1 s to import

    scored = {system: score for system, score in mean_scores.items() if score is not None}
    ranks = rankdata([-score for score in scored.values()], method="min")
    return {system: int(rank) for system, rank in zip(scored, ranks, strict=True)}


def compare(human_side: Data, scores: Data | None, metric_ratings: Data | None, margin: float) -> Data:
    """Per method and aspect: the rankings side by side, their correlations, item-level agreement."""
    comparison: dict[str, Data] = {method: {} for method in METHODS}
    for aspect in ASPECTS:
        human_labels = human_side["labels"][aspect]
        mean_scores = {row["system"]: row["values"][aspect] for row in scores["rows"]} if scores else {}
        if scores:
            judged_texts = {text for text, _, _ in human_labels}
            per_text = {
                text: by_system for text, by_system in scores["per_text"][aspect].items() if text in judged_texts
            }
            labels = metric_labels(per_text, [row["system"] for row in scores["rows"]], margin)
            items = item_agreement(human_labels, labels)
            items.update(_label_shares(labels.values()))
        else:
            items = {"accuracy": None, "items": 0, "metric_labels": 0, "metric_ties": 0}
        by_score = score_ranks(mean_scores)
        for method in METHODS:
            human_board = human_side["ratings"][method][aspect] if human_side["judgements"] else {}
            metric_board = metric_ratings[method][aspect] if metric_ratings else {}
            human_rating = {system: entry["rating"] for system, entry in human_board.items()}
            metric_rating = {system: entry["rating"] for system, entry in metric_board.items()}
            systems = sorted(
                human_board.keys() | mean_scores.keys(),
                key=lambda system: (-human_rating.get(system, -math.inf), -(mean_scores.get(system) or -1), system),
            )
            comparison[method][aspect] = {
                "rows": [
                    {
                        "system": system,
                        "human_rating": human_rating.get(system),
                        "human_rank": human_board[system]["rank"] if system in human_board else None,
                        "mean_score": mean_scores.get(system),
                        "score_rank": by_score.get(system),
                        "metric_rating": metric_rating.get(system),
                        "metric_rank": metric_board[system]["rank"] if system in metric_board else None,
                    }
                    for system in systems
                ],
                "by_score": rank_correlation(human_rating, mean_scores),
                "by_battles": rank_correlation(human_rating, metric_rating),
                "items": items,
            }
    return comparison


def _label_shares(labels: Iterable[str]) -> dict[str, int]:
    labels = list(labels)
    decided = sum(1 for label in labels if label in (A, B))
    return {"metric_labels": len(labels), "metric_ties": len(labels) - decided}


def verdict(human_side: Data, scores: Data | None, comparison: Data) -> Data:
    """One line on how the human and GENRES rankings compare (Elo against mean scores)."""
    if not human_side["judgements"]:
        return {
            "tau": None,
            "text": "No human judgements yet." if scores else "No GENRES scores or human judgements yet.",
        }
    if not scores:
        return {"tau": None, "text": f"{human_side['judgements']} human judgements; no GENRES scores yet."}
    taus = [entry["by_score"]["kendall_tau"] for entry in comparison[DEFAULT_METHOD].values()]
    taus = [tau for tau in taus if tau is not None]
    if not taus:
        return {"tau": None, "text": "Too few systems rated by both humans and GENRES to compare rankings."}
    tau = sum(taus) / len(taus)
    if tau >= AGREE_TAU:
        wording = "Human and GENRES rankings agree"
    elif tau >= PARTLY_AGREE_TAU:
        wording = "Human and GENRES rankings partly agree"
    else:
        wording = "Human and GENRES rankings disagree"
    over = f" (mean over {len(taus)} aspects)" if len(taus) > 1 else ""
    return {"tau": tau, "text": f"{wording}: Kendall τ {tau:.2f}{over}."}


def figures_of_scores(rows: list[Data], score_tests: Data | None) -> Data:
    """The figures that show the GENRES scores alone: no human judgement changes them."""
    return {
        "profile": score_profile(rows, ASPECT_NAMES),
        "significance": significance_heatmaps(score_tests or {}, ASPECT_NAMES),
        "replicates": replicate_points(replicate_groups(rows, metrics.COLUMN_KEYS), ASPECT_NAMES),
    }


def assemble(
    dataset: Dataset,
    settings: list[Data],
    setting: Data | None,
    margin: float,
    human_side: Data,
    scores: Data | None,
    metric_ratings: Data | None,
    score_tests: Data | None = None,
    score_figures: Data | None = None,
) -> Data:
    """The leaderboard dict; ``score_figures`` (``figures_of_scores``) are drawn here when not given."""
    comparison = compare(human_side, scores, metric_ratings, margin)
    rows = scores["rows"] if scores else []
    replicates = replicate_groups(rows, metrics.COLUMN_KEYS)
    if score_figures is None:
        score_figures = figures_of_scores(rows, score_tests)
    mean_scores = {aspect: {row["system"]: row["values"][aspect] for row in rows} for aspect in ASPECTS}
    human_ratings = human_side["ratings"] if human_side["judgements"] else {method: {} for method in METHODS}
    separation = human_separation(human_ratings)
    figures = {
        "ratings": {
            method: rating_bars(
                human_ratings[method], metric_ratings[method] if metric_ratings else {}, ASPECT_NAMES, name
            )
            for method, name in METHODS.items()
        },
        "aspects": {
            method: ratings_by_aspect(
                human_ratings[method], metric_ratings[method] if metric_ratings else {}, ASPECT_NAMES, name
            )
            for method, name in METHODS.items()
        },
        "scatter": {
            method: rating_vs_score(human_ratings[method], mean_scores, ASPECT_NAMES, name)
            for method, name in METHODS.items()
        },
        "win_rates": win_rate_heatmaps(human_side["win_rates"] if human_side["judgements"] else {}, ASPECT_NAMES),
        "profile": score_figures["profile"],
        "significance": score_figures["significance"],
        "human_significance": {
            method: separation_heatmaps(separation[method], ASPECT_NAMES, name) for method, name in METHODS.items()
        },
        "replicates": score_figures["replicates"],
    }
    return {
        "dataset": {
            "name": dataset.name,
            "level": dataset.level,
            "domain": dataset.domain,
            "description": dataset.description,
            "texts": dataset.texts.count(),
        },
        "aspects": [{"code": code, "name": name} for code, name in ASPECT_NAMES],
        "margin": margin,
        "bootstrap_rounds": {"human": BOOTSTRAP_ROUNDS, "metric": METRIC_BOOTSTRAP_ROUNDS},
        "settings": settings,
        "setting": setting,
        "scores": rows,
        "unscored": scores["unscored"] if scores else [],
        "replicates": replicates,
        "human": {key: value for key, value in human_side.items() if key != "labels"},
        "metric_ratings": metric_ratings,
        "comparison": comparison,
        "significance": {
            "alpha": significance.ALPHA,
            "rounds": {"intervals": significance.INTERVAL_ROUNDS, "tests": significance.PERMUTATION_ROUNDS},
            "scores": score_tests,
            "human": separation,
        },
        "verdict": verdict(human_side, scores, comparison),
        "plots": figures,
    }
