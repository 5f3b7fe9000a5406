"""Every page carries a Content-Security-Policy that runs no inline script, and no template
the site serves has one."""

import re

import pytest
from django.template import engines

pytestmark = pytest.mark.django_db

# The site's and our apps' template directories (installed packages' are not ours to serve).
TEMPLATE_DIRS = [directory for directory in engines["django"].template_dirs if "site-packages" not in directory.parts]
# A standalone file for download, never served with the policy; it embeds its scripts on purpose.
NOT_SERVED = {"leaderboard/export.html"}
# A script element without src, unless it only carries data (json_script's type), which no browser runs.
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\b(?:src=|type=\"application/json\"))[^>]*>", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)


def directives(response):
    policy = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in policy.split(";"))}


@pytest.mark.parametrize("url", ["/accounts/login/", "/"])
def test_pages_forbid_inline_script_and_framing(admin_client, url):
    policy = directives(admin_client.get(url))
    assert policy["script-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]  # the site's own websockets too
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]


def test_refusals_carry_the_policy_too(client, annotator_user):
    client.force_login(annotator_user)
    response = client.get("/upload/")
    assert response.status_code == 403
    assert directives(response)["script-src"] == ["'self'"]


def test_no_served_template_has_an_inline_script_or_event_handler():
    served = {
        str(path.relative_to(directory)): path
        for directory in TEMPLATE_DIRS
        for path in directory.rglob("*.html")
        if str(path.relative_to(directory)) not in NOT_SERVED
    }
    assert "base.html" in served and "annotation/annotate_item.html" in served
    offending = []
    for name, template in sorted(served.items()):
        text = template.read_text()
        for pattern in (INLINE_SCRIPT, EVENT_HANDLER):
            offending += [f"{name}: {match.group(0)}" for match in pattern.finditer(text)]
    assert offending == []
