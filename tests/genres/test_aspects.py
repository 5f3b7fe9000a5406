"""The vocabulary of scores: each column scaled, titled and ranked as the pages show it."""

from scoring.genres import aspects


def test_fractions_are_shown_times_a_hundred_and_counts_as_they_are():
    assert aspects.TS.shown(0.4567) == "45.7" and aspects.TS.title == "Topical similarity ×100"
    assert aspects.TRIPLES.shown(2.25) == "2.2" and aspects.TRIPLES.title == "Mean number of triples per text"
    assert aspects.EMPTY_SHARE.shown(None) == "" and aspects.EMPTY_SHARE.better == aspects.LOWER


def test_the_five_aspects_are_the_human_judged_columns_in_the_papers_order():
    assert aspects.ASPECT_CODES == ("ts", "us", "fs", "gs", "cs")
    assert aspects.JUDGED_CODES == ("fs", "gs")
    assert aspects.METRICS == (*aspects.ASPECT_CODES, "prf")
    assert aspects.METRIC_NAMES["fs"] == "Factualness (fs, judge)"
    assert aspects.METRIC_NAMES["ts"] == "Topical similarity (ts)"
    assert len(aspects.BY_CODE) == len(aspects.COLUMNS)
