"""Everything that writes campaigns, queues and judgements, each operation in one transaction.

- ``campaigns``: creating a campaign, opening and closing it, annotators joining and leaving;
- ``quality_control``: the practice round, attention checks, exclusions;
- ``queues``: what an annotator judges next, the text they are on, skipping it;
- ``judgements``: saving judgements (``judgements_saved`` tells the leaderboards);
- ``errors``: what they refuse, and why.

Views and commands call these functions; the planning itself (sampling, queues, rebalancing)
is pure and lives in ``annotation.sampling``.
"""
