"""Live progress of a scoring run: one channels group per run, which its page's websocket joins.

Jobs call ``publish_progress`` after every change they make (a chunk done, a failure, a
cancellation); the message carries the run's whole progress state, so a page that missed
one update is right again with the next.
"""

from genres_site.broadcast import broadcast

MESSAGE_TYPE = "run.progress"  # handled by RunProgressConsumer.run_progress


def group_name(run_id):
    return f"scoring-run-{run_id}"


def publish_progress(run):
    broadcast(group_name(run.pk), {"type": MESSAGE_TYPE, "state": run.progress_state()})
