"""``manage.py copy_database``: the demo study, begun on SQLite, copied into a PostgreSQL database
made for the test and dropped after it; every table's count and every judgement (its times
included) as in the source, new rows get new ids, and a second copy into the now full database
is refused until ``--replace`` is given."""

import time
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connections

from annotation.models import Judgement
from scoring.management.commands.copy_database import copied_models, database_at
from tests.deploy.postgres_server import reason_to_skip, throwaway_database

pytestmark = [
    pytest.mark.postgres_relevant,
    pytest.mark.slow,
    pytest.mark.skipif(bool(reason_to_skip()), reason=reason_to_skip() or ""),
]
COPIED = "copied"


@pytest.fixture
def target_url():
    with throwaway_database("copy_test") as url:
        yield url


def copy_database(*args):
    out = StringIO()
    call_command("copy_database", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def every_judgement(alias):
    return list(Judgement.objects.using(alias).order_by("pk").values())


def test_the_demo_study_is_copied_row_for_row_and_a_full_target_refused(file_database, target_url):
    call_command("load_demo", "--json", stdout=StringIO(), stderr=StringIO())

    started = time.monotonic()
    reply = copy_database("--to", target_url)
    print(f"copy of the demo study, migrate included: {time.monotonic() - started:.1f} s")

    assert "every table's count matches" in reply
    with database_at(target_url, COPIED):
        counts = {model._meta.db_table: model._base_manager.using("default").count() for model in copied_models()}
        copied = {model._meta.db_table: model._base_manager.using(COPIED).count() for model in copied_models()}
        assert copied == counts
        # Every table the migrations made, not only those of the models the command walks.
        assert set(connections[COPIED].introspection.table_names()) == {*counts, "django_migrations"}
        assert counts["annotation_judgement"] > 1000
        assert every_judgement(COPIED) == every_judgement("default")
        newest = get_user_model().objects.using("default").latest("pk").pk
        assert get_user_model().objects.using(COPIED).create(username="after-the-copy").pk > newest

    with pytest.raises(CommandError, match="names this very database"):
        copy_database("--to", f"sqlite:///{file_database}", "--replace")
    with pytest.raises(CommandError, match=r"the target already holds rows \(auth_user, .*give --replace"):
        copy_database("--to", target_url)
    copy_database("--to", target_url, "--replace")
    with database_at(target_url, COPIED):
        assert not get_user_model().objects.using(COPIED).filter(username="after-the-copy").exists()
