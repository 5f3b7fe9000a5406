"""Templates are compiled once per process: the production settings' engine loads them through
Django's cached loader, so a request renders the item page without reading or parsing a file."""

from django.template import engines
from django.template.loaders.cached import Loader as CachedLoader


def test_the_site_engine_caches_compiled_templates():
    engine = engines["django"].engine
    assert not engine.debug
    [loader] = engine.template_loaders
    assert isinstance(loader, CachedLoader)
    # The same compiled template comes back on a second load.
    first = engine.get_template("annotation/annotate_item.html")
    assert engine.get_template("annotation/annotate_item.html") is first
