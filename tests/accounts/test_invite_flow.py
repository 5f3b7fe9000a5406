"""A study's accounts from start to end, as people would do it in the browser (Django's test client):
staff invite 20 annotators from a pasted list; one accepts, sets a password, forgets it, resets it
by mail, and signs in to their queue."""

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import Invite
from tests.accounts.conftest import make_user

pytestmark = pytest.mark.django_db


def test_twenty_annotators_invited_one_through_to_a_reset(client):
    staff = Client()
    make_user("staff", "lead", password="lead-pass-123")
    assert staff.login(username="lead", password="lead-pass-123")
    pasted = "\n".join(f"annotator{n:02},annotator{n:02}@lab.example.org,annotator" for n in range(1, 21))

    made = staff.post(reverse("accounts:create"), {"rows": pasted, "method": "invite", "answer": "page"})

    assert made.status_code == 200 and b"20 accounts made" in made.content
    links = dict((account.username, link) for account, link in made.context["rows"])
    assert len(links) == 20 and Invite.objects.pending().count() == 20
    listing = staff.get(reverse("accounts:list")).content.decode()
    assert listing.count("invited, until") == 20

    # annotator07 opens their link and chooses a password.
    invite_path = links["annotator07"].removeprefix("http://testserver")
    assert b'value="annotator07" readonly' in client.get(invite_path).content
    accepted = client.post(invite_path, {"new_password1": "Seven-pass-777", "new_password2": "Seven-pass-777"})
    assert accepted.url == reverse("annotation:after_sign_in")
    assert client.get(reverse("annotation:annotate_home")).status_code == 200
    assert staff.get(reverse("accounts:list")).content.decode().count("invited, until") == 19
    client.post(reverse("logout"))

    # They forget it, and reset it through the mail the site sends.
    assert not client.login(username="annotator07", password="forgotten")
    client.post(reverse("password_reset"), {"email": "annotator07@lab.example.org"})
    (message,) = mail.outbox
    reset_path = re.search(r"http://testserver(/accounts/reset/\S+/)", message.body).group(1)
    form = client.get(reset_path, follow=True)
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "Seven-new-778", "new_password2": "Seven-new-778"})
    assert done.url == reverse("password_reset_complete")

    # And sign in with the new one, through the sign-in form, landing on their queue.
    signed_in = client.post(reverse("login"), {"username": "annotator07", "password": "Seven-new-778"}, follow=True)
    assert signed_in.redirect_chain[-1][0] == reverse("annotation:annotate_home")
    assert signed_in.context["user"].username == "annotator07"
    assert not client.login(username="annotator07", password="Seven-pass-777")
