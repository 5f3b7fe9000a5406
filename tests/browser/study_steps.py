"""Steps of running a study in the browser, shared by the accounts, adjudication and whole-study
tests: inviting accounts, accepting an invite, making an API token, resolving a disagreement."""

from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from accounts.roles import set_role
from tests.browser.annotator_pages import activate


def make_user(username, role):
    """An account of ``role`` whose password is ``<username>-pass-123``."""
    user = get_user_model().objects.create_user(username, f"{username}@lab.example.org", f"{username}-pass-123")
    set_role(user, role)
    return user


def invite_annotators(page, base, count, screenshot=None):
    """As signed-in staff, make ``count`` annotators person01, person02… from a pasted list; their invite links."""
    page.goto(base + reverse("accounts:create"))
    page.fill(
        "#id_rows", "\n".join(f"person{n:02},person{n:02}@lab.example.org,annotator" for n in range(1, count + 1))
    )
    if screenshot:
        page.screenshot(path=screenshot("accounts-new"), full_page=True)
    page.click("button[value=page]")
    expect(page.locator("h1")).to_have_text(f"{count} accounts made")
    links = page.locator("#accounts-made td.secret")
    expect(links).to_have_count(count)
    if screenshot:
        page.screenshot(path=screenshot("accounts-made"), full_page=True)
    return links.all_inner_texts()


def accept_invite(chromium, viewport, link, username, password, screenshot=None):
    """Open ``link`` in a browser of its own, choose ``password``; the page, signed in, on Annotate."""
    invitee = chromium.new_context(viewport=viewport).new_page()
    invitee.context.set_default_timeout(10_000)
    invitee.goto(link)
    expect(invitee.locator("#id_username")).to_have_value(username)
    invitee.fill("#id_new_password1", password)
    invitee.fill("#id_new_password2", password)
    if screenshot:
        invitee.screenshot(path=screenshot("invite"), full_page=True)
    invitee.click("main button[type=submit]")
    base = link.split("/accounts/")[0]
    invitee.wait_for_url(base + reverse("annotation:annotate_home"))
    expect(invitee.locator(".messages")).to_contain_text(f"Welcome, {username}")
    return invitee


def make_token(page, name):
    """On the signed-in user's API tokens page, make a token named ``name``; its key, shown once."""
    page.click("text=API tokens")
    page.fill("#id_name", name)
    page.click("text=Make a token")
    expect(page.locator("#tokens")).to_contain_text(name)
    return page.locator("#new-key").inner_text()


def resolve(page, width, aspect, label, note):
    """On an adjudication item page, settle ``aspect`` as ``label`` ("System B better"…) with ``note``."""
    activate(page, width, f"#aspect-{aspect} label:has-text('{label}')")
    page.fill(f"#id_{aspect}_note", note)
    activate(page, width, f"#aspect-{aspect} button[type=submit]")
    expect(page.locator(f"#aspect-{aspect}")).to_contain_text(f"Resolved: {label} by")
