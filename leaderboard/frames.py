"""pandas DataFrames of a dataset's scores, judgements, agreement and ratings, for notebooks.

Call after ``django.setup()`` (see docs/python-api.md)::

    from leaderboard import frames
    scores = frames.text_scores("nyt10m")          # one row per text and system
    means = frames.system_means("nyt10m")          # per aspect and system: mean, 95% interval, tied rank
    judges = frames.judge_agreement("nyt10m")      # per judge: agreement with humans on single triples

Every function takes a dataset (its name or the model instance); the score functions take an
optional scoring ``setting`` (a run fingerprint, the newest when not given: settings are never
mixed), the human ones an optional ``campaign`` name (all the dataset's campaigns when not
given). They read the database and compute with the same code as the leaderboard
(``leaderboard.significance``, ``annotation.agreement``, ``annotation.ratings``), so a frame
and the page agree whenever they are built from the same data.
"""

from typing import Any

import pandas as pd
from django.db.models import QuerySet

from annotation import agreement as agreement_figures
from annotation import exports, judgement_queries
from annotation.models import ASPECTS, Campaign
from annotation.triple_checks.models import TripleCheck
from annotation.triple_checks.queries import (
    BIAS_FIELDS,
    JUDGE_FIELDS,
    LABEL_FIELDS,
    bias_records,
    judge_records,
    judge_report,
    label_records,
)
from leaderboard import contents, human, metrics, significance
from scoring.genres.aspects import PRF_CODES
from scoring.models import Dataset
from scoring.models.scores import TextScore

TEXT_SCORE_COLUMNS = ("text_id", "text", "position", "system", "ground_truth", *ASPECTS, *PRF_CODES)
AGREEMENT_COLUMNS = ("aspect", "accuracy", "kappa", "alpha", "items", "pairs")
RATING_COLUMNS = ("method", "aspect", "system", "rating", "ci_low", "ci_high", "battles", "rank_best", "rank_worst")


def _dataset(dataset: Dataset | str) -> Dataset:
    if isinstance(dataset, Dataset):
        return dataset
    found = Dataset.objects.filter(name=dataset).first()
    if found is None:
        raise LookupError(f"No dataset named {dataset!r}.")
    return found


def _setting(dataset: Dataset, setting: str | None) -> str:
    """The fingerprint asked for, or the newest; LookupError when the dataset has no such scores."""
    try:
        chosen = contents.pick_setting(metrics.scoring_settings(dataset), setting)
    except contents.LeaderboardError as error:
        raise LookupError(str(error)) from None
    if chosen is None:
        raise LookupError(f"The dataset {dataset.name} has no scoring results yet.")
    return chosen["key"]


def text_scores(dataset: Dataset | str, setting: str | None = None) -> pd.DataFrame:
    """One row per text and system: the current per-text scores of one setting (shares in [0, 1]).

    Columns: :data:`TEXT_SCORE_COLUMNS` (``text`` is the external id, or ``#N`` by position);
    NaN where a metric does not apply (cs and P/R/F1 of a text without gold) or was not run.
    """
    dataset = _dataset(dataset)
    fingerprint = _setting(dataset, setting)
    rows: dict[int, dict[str, Any]] = {}
    stored = (
        TextScore.objects.current()
        .filter(fingerprint=fingerprint, output__text__dataset=dataset)
        .values_list(
            "output_id", "output__text_id", "output__text__external_id", "output__text__position",
            "output__system__name", "output__system__is_ground_truth", "values",
        )
        .order_by("output__text__position", "output__system_id")
    )  # fmt: skip
    for output, text_id, external_id, position, system, ground_truth, values in stored.iterator(chunk_size=5000):
        row = rows.setdefault(
            output,
            {
                "text_id": text_id,
                "text": external_id or f"#{position + 1}",
                "position": position + 1,
                "system": system,
                "ground_truth": ground_truth,
            },
        )
        row.update(values)
    return pd.DataFrame(list(rows.values()), columns=TEXT_SCORE_COLUMNS).astype(
        {key: float for key in (*ASPECTS, *PRF_CODES)}
    )


def _score_tests(dataset: Dataset, setting: str | None) -> dict[str, Any]:
    return contents.significance_of_scores(metrics.metric_scores(dataset, _setting(dataset, setting)))


def system_means(dataset: Dataset | str, setting: str | None = None) -> pd.DataFrame:
    """Per aspect and system: mean over texts, 95% bootstrap interval, texts, rank range.

    The ranks tie systems whose difference is not significant (paired tests, Holm-corrected).
    """
    tests = _score_tests(_dataset(dataset), setting)
    return pd.DataFrame(significance.interval_records(tests), columns=significance.INTERVAL_FIELDS)


def pairwise_tests(dataset: Dataset | str, setting: str | None = None) -> pd.DataFrame:
    """Per aspect, every ordered pair of systems: mean difference (row − column) on the texts both
    have, Holm-adjusted p-value, and ``apart``: 1 significantly above, −1 below, 0 neither."""
    tests = _score_tests(_dataset(dataset), setting)
    return pd.DataFrame(significance.pair_records(tests), columns=significance.PAIR_FIELDS)


def _campaigns(dataset: Dataset | str, campaign: str | None) -> QuerySet[Campaign]:
    return judgement_queries.find_campaigns(_dataset(dataset).name, campaign)


def judgements(dataset: Dataset | str, campaign: str | None = None) -> pd.DataFrame:
    """Every judgement, one row per item, aspect and annotator: the columns of the campaign export."""
    frames = [exports.judgement_frame(each) for each in _campaigns(dataset, campaign).order_by("created_at", "pk")]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=exports.COLUMNS)


def agreement(dataset: Dataset | str, campaign: str | None = None) -> pd.DataFrame:
    """Per aspect: tie-discounted accuracy, Cohen's κ and Krippendorff's α over items judged twice."""
    figures = agreement_figures.agreement(judgement_queries.agreement_judgements(_campaigns(dataset, campaign)))
    return pd.DataFrame(
        [{"aspect": aspect, **{key: figures[aspect][key] for key in AGREEMENT_COLUMNS[1:]}} for aspect in ASPECTS],
        columns=AGREEMENT_COLUMNS,
    )


def ratings(
    dataset: Dataset | str, campaign: str | None = None, rounds: int = human.ratings.BOOTSTRAP_ROUNDS
) -> pd.DataFrame:
    """Per method (elo, bt), aspect and system: rating, 95% bootstrap interval, battles, rank range."""
    campaigns = _campaigns(dataset, campaign)
    records: list[dict[str, Any]] = []
    for aspect in ASPECTS:
        for method, board in human.rate(judgement_queries.human_battles(campaigns, aspect), rounds).items():
            for system, entry in board.items():
                records.append(
                    {
                        "method": method,
                        "aspect": aspect,
                        "system": system,
                        **{key: entry[key] for key in ("rating", "ci_low", "ci_high", "battles")},
                        "rank_best": entry["rank"][0],
                        "rank_worst": entry["rank"][1],
                    }
                )
    return pd.DataFrame(records, columns=RATING_COLUMNS)


def _triple_checks(dataset: Dataset, campaign: str | None) -> QuerySet[TripleCheck]:
    """The dataset's triple-check campaigns, or the one named; LookupError for an unknown name."""
    campaigns = TripleCheck.objects.filter(dataset=dataset)
    if campaign is not None:
        campaigns = campaigns.filter(name=campaign)
        if not campaigns.exists():
            raise LookupError(f"No triple-check campaign named {campaign!r} on {dataset.name}.")
    return campaigns


def _judge_report(dataset: Dataset | str, campaign: str | None) -> dict[str, Any]:
    dataset = _dataset(dataset)
    return judge_report(dataset, _triple_checks(dataset, campaign))


def triple_labels(dataset: Dataset | str, campaign: str | None = None) -> pd.DataFrame:
    """Every saved label of the dataset's triple checks: campaign, item, text, system, the triple,
    its sampling weight, whether it is an attention check, annotator, supported, facts, seconds,
    saved_at; and the triple's gold label (``gold_supported``, ``gold_facts``) with where it comes
    from (``gold``: "adjudicated" by staff, or the annotators' "majority")."""
    return pd.DataFrame(label_records(_triple_checks(_dataset(dataset), campaign)), columns=LABEL_FIELDS)


def judge_agreement(dataset: Dataset | str, campaign: str | None = None) -> pd.DataFrame:
    """One row per judge with verdicts on the triples humans labelled (triple-check campaigns):
    accuracy, Cohen's κ, precision and recall of "unsupported", MAE of the fact count, each with
    its 95% bootstrap interval (``_low``, ``_high``); best κ first. The gold label is staff's
    adjudication where recorded, else the majority: ``adjudicated`` of the ``triples`` are the former."""
    return pd.DataFrame(judge_records(_judge_report(dataset, campaign)), columns=JUDGE_FIELDS)


def judge_bias(dataset: Dataset | str, campaign: str | None = None) -> pd.DataFrame:
    """Per judge, system and aspect (fs, gs): the judge's score on the labelled sample, the humans'
    estimate with its interval, and the bias (judge − humans) with its interval. Both scores are
    per-text means, as the leaderboard's FS and GS; the humans' label is the gold one (adjudicated
    where recorded, else the majority: how many, per judge, in :func:`judge_agreement`)."""
    return pd.DataFrame(bias_records(_judge_report(dataset, campaign)), columns=BIAS_FIELDS)
