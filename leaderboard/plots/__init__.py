"""The leaderboard's plotly figures, built from plain data and returned as JSON-ready dicts.

No Django here: the page, the JSON refresh and the offline export all draw the same figures,
and each figure's data also goes out as CSV (``leaderboard.exports``). Figures with one view
per aspect carry plotly buttons to switch aspect, so they work unchanged in the static export.

By kind: ``ratings`` (human and metric-battle ratings), ``matrices`` (system × system heatmaps:
win rates, significance, separation), ``scores`` (mean scores and replicate runs); ``style``
holds the look they share and the one place a figure is made.
"""
