"""The secret key file of an installation without SECRET_KEY set."""

import stat
from concurrent.futures import ProcessPoolExecutor

from genres_site.secret_key import load_or_create_secret_key


def test_the_key_is_made_once_readable_by_its_owner_only(tmp_path):
    path = tmp_path / "secret_key"
    key = load_or_create_secret_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_secret_key(path) == key
    assert [file.name for file in tmp_path.iterdir()] == ["secret_key"]


def test_processes_starting_at_once_all_get_the_same_key(tmp_path):
    path = tmp_path / "secret_key"
    with ProcessPoolExecutor(max_workers=8) as pool:
        keys = set(pool.map(load_or_create_secret_key, [path] * 32))
    assert keys == {path.read_text().strip()}
    assert [file.name for file in tmp_path.iterdir()] == ["secret_key"]
