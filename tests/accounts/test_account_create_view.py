"""Bulk creation: a pasted or uploaded username,email,role list; all or nothing, the bad rows named;
invite links or one-time passwords shown once, or answered as CSV, and stored only hashed."""

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.models import Invite, PasswordChangeDue
from accounts.roles import Role, role_of
from scoring.models.catalogue import api_key_hash

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

URL = reverse("accounts:create")
LIST = "username,email,role\nalice,alice@example.org,annotator\nbob,,researcher\ncarol,carol@example.org,\n"


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def usernames():
    return set(get_user_model().objects.exclude(username="staff").values_list("username", flat=True))


def test_the_form_renders(staff_client):
    response = staff_client.get(URL)
    assert response.status_code == 200
    assert b'name="rows"' in response.content and b'name="file"' in response.content


def test_a_pasted_list_makes_invited_accounts_with_their_roles(staff_client, staff_user):
    response = staff_client.post(URL, {"rows": LIST, "method": "invite", "answer": "page"})

    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    assert usernames() == {"alice", "bob", "carol"}
    users = {user.username: user for user in get_user_model().objects.all()}
    assert role_of(users["bob"]) == Role.RESEARCHER and role_of(users["carol"]) == Role.ANNOTATOR
    assert not users["alice"].has_usable_password()
    links = [link for _, link in response.context["rows"]]
    assert len(links) == 3 and all(link.startswith("http://testserver/accounts/invite/") for link in links)
    # The page shows each link; the database holds only its hash.
    for link in links:
        key = link.rstrip("/").rsplit("/", 1)[1]
        assert link in response.content.decode()
        invite = Invite.objects.get(key_sha256=api_key_hash(key))
        assert invite.created_by == staff_user and invite.is_pending
        assert not Invite.objects.filter(key_sha256=key).exists()


def test_one_time_passwords_must_be_changed_and_are_stored_hashed(staff_client, client):
    response = staff_client.post(URL, {"rows": "dora,dora@example.org,annotator", "method": "password"})

    (account, link), *_ = response.context["rows"]
    assert link == "" and len(account.password) >= 16
    dora = get_user_model().objects.get(username="dora")
    assert dora.password != account.password and dora.check_password(account.password)
    assert PasswordChangeDue.objects.filter(user=dora).exists() and not Invite.objects.exists()


def test_the_csv_answer_holds_the_links(staff_client):
    response = staff_client.post(URL, {"rows": LIST, "method": "invite", "answer": "csv"})

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="new-accounts.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["username"] for row in rows] == ["alice", "bob", "carol"]
    assert all(row["invite_link"].startswith("http://testserver/accounts/invite/") for row in rows)
    assert {row["role"] for row in rows} == {"annotator", "researcher"}


def test_an_uploaded_file_works_like_a_pasted_list(staff_client):
    upload = SimpleUploadedFile("people.csv", ("\ufeff" + LIST).encode())
    response = staff_client.post(URL, {"file": upload, "method": "password"})
    assert response.status_code == 200
    assert usernames() == {"alice", "bob", "carol"}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            "alice,alice@example.org,annotator\nbob,bob@example,annotator",
            "Row 2 (bob): the email address &#x27;bob@example&#x27; is not valid",
        ),
        (
            "alice,,annotator\n\nbob,,admin",
            "Row 3 (bob): the role &#x27;admin&#x27; is not one of staff, researcher, annotator",
        ),
        ("alice,,\nALICE,,", "Row 2 (ALICE): the username is in the list twice"),
        ("alice,,\nstaff,,", "Row 2 (staff): an account of that username exists already"),
        ("alice,,\nbad name!,,", "Row 2 (bad name!): Enter a valid username"),
        ("alice,,\n,bob@example.org,", "Row 2: no username"),
        ("alice,a@example.org,annotator,extra", "Row 1 (alice): 4 columns; write username,email,role"),
        ("username,email,role\n", "The list is empty"),
    ],
)
def test_a_bad_row_makes_nothing_and_is_named(staff_client, rows, message):
    response = staff_client.post(URL, {"rows": rows, "method": "invite"})

    assert response.status_code == 200
    assert message in response.content.decode()
    assert usernames() == set() and not Invite.objects.exists()


def test_every_bad_row_is_named_at_once_with_every_reason(staff_client):
    response = staff_client.post(URL, {"rows": "a,,boss\nb,,\nc,nope,\nstaff,nope,boss", "method": "invite"})
    errors = response.context["form"].non_field_errors()
    assert [error.split(":")[0] for error in errors] == ["Row 1 (a)", "Row 3 (c)", "Row 4 (staff)"]
    assert errors[-1] == (
        "Row 4 (staff): an account of that username exists already; the email address 'nope' is not valid; "
        "the role 'boss' is not one of staff, researcher, annotator"
    )


def test_a_list_and_a_file_together_are_refused(staff_client):
    upload = SimpleUploadedFile("people.csv", LIST.encode())
    response = staff_client.post(URL, {"rows": "zed,,", "file": upload, "method": "invite"})
    assert "Paste a list or choose a file, not both." in response.content.decode()
    assert usernames() == set()


def test_a_file_that_is_not_text_is_refused(staff_client):
    upload = SimpleUploadedFile("people.xlsx", b"PK\x03\x04\xff\xfe")
    response = staff_client.post(URL, {"file": upload, "method": "invite"})
    assert "people.xlsx is not UTF-8 text." in response.content.decode()
