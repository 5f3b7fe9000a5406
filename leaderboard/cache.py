"""Cached leaderboard parts, keyed by versions read from the database.

A key holds the version of the data it was built from: the judgement version (count, last id
and last edit time of the dataset's judgements, and its campaigns) and the scores version
(from the scoring results). Any write changes a version, so the next request builds a fresh
part under a new key and stale parts simply age out; no process has to reach another's cache
to invalidate it, which matters because RQ workers write results while the web server reads.
The version queries are two small aggregates; everything expensive (bootstrap ratings,
correlations, figures) is built once per change.
"""

import hashlib

from django.core.cache import cache
from django.db.models import Count, Max

from annotation.models import Campaign, Judgement

# Parts are rebuilt when their data changes, not on a clock; a day bounds what a stale key costs.
TIMEOUT = 24 * 3600


def judgement_version(dataset):
    campaigns = Campaign.objects.filter(dataset=dataset).aggregate(count=Count("pk"), last=Max("pk"))
    judgements = Judgement.objects.filter(assignment__item__campaign__dataset=dataset).aggregate(
        count=Count("pk"), last=Max("pk"), edited=Max("updated_at")
    )
    return _digest(campaigns["count"], campaigns["last"], judgements["count"], judgements["last"], judgements["edited"])


def get_or_build(kind, parts, build):
    """The cached value of ``kind`` for ``parts`` (dataset id, versions, options), built when missing."""
    key = f"leaderboard:{kind}:{_digest(*parts)}"
    value = cache.get(key)
    if value is None:
        value = build()
        cache.set(key, value, TIMEOUT)
    return value


def _digest(*parts):
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:32]
