"""The scoring app's views: pages.py (datasets, texts, uploads), runs.py (scoring runs), api.py
(the token JSON API)."""
