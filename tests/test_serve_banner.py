"""What ``genres_site.serve`` prints once the app answers."""

from genres_site.serve import banner

SUMMARY = {
    "datasets": [{"name": "demo-sentences", "texts": 40}],
    "outputs": [{"system": "ClosedIE-T5"}, {"system": "GPT-Fabulist-3.5"}],
    "unchanged": False,
}


def test_new_accounts_are_printed_with_their_passwords():
    accounts = [{"username": "admin", "password": "s3cret-pass", "role": "superuser"}]
    text = banner("http://127.0.0.1:8000/", dict(SUMMARY, accounts=accounts))
    assert "Demo data loaded: demo-sentences (40 texts); 2 systems." in text
    assert "  admin       password s3cret-pass   (superuser)" in text
    assert "--reset-passwords" not in text


def test_existing_accounts_point_once_to_reset_passwords():
    accounts = [
        {"username": "admin", "password": None, "role": "superuser"},
        {"username": "annotator1", "password": None, "role": "annotator"},
    ]
    text = banner("http://127.0.0.1:8000/", dict(SUMMARY, unchanged=True, accounts=accounts))
    assert "Demo data already loaded" in text
    assert "  annotator1  exists, password as first printed   (annotator)" in text
    assert text.count("--reset-passwords") == 1
