"""Live updates are best effort: a channel layer that is down costs a log line, not the work."""

import logging

import pytest

from core.live import broadcast


@pytest.fixture
def unreachable_channel_layer(settings, tmp_path):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "genres_site.channel_layer.ChannelLayer",
            "CONFIG": {"hosts": [f"unix://{tmp_path / 'nobody-listens.sock'}"]},
        }
    }


def test_a_message_to_a_group_reaches_its_sockets(settings):
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("test-group", channel)

    broadcast("test-group", {"type": "test.message", "value": 7})

    assert async_to_sync(layer.receive)(channel) == {"type": "test.message", "value": 7}


def test_a_layer_that_is_down_logs_one_warning(unreachable_channel_layer, caplog):
    with caplog.at_level(logging.WARNING, logger="core.live"):
        broadcast("some-group", {"type": "test.message"})

    [record] = caplog.records
    assert "Live update to some-group not sent" in record.getMessage()
