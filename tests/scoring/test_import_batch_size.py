"""A staged import's batches are resized to last about BATCH_SECONDS each (scoring.import_batches)."""

from scoring.import_batches import BATCH_ROWS, BATCH_SECONDS, MIN_BATCH_ROWS, next_size


def test_a_slow_batch_halves_the_next_down_to_the_least():
    assert next_size(BATCH_ROWS, 3 * BATCH_SECONDS) == BATCH_ROWS // 2
    assert next_size(MIN_BATCH_ROWS + 50, 3 * BATCH_SECONDS) == MIN_BATCH_ROWS


def test_a_quick_batch_doubles_the_next_up_to_the_most():
    assert next_size(MIN_BATCH_ROWS, BATCH_SECONDS / 10) == 2 * MIN_BATCH_ROWS
    assert next_size(BATCH_ROWS, BATCH_SECONDS / 10) == BATCH_ROWS


def test_a_batch_near_the_target_keeps_its_size():
    assert next_size(800, 0.7 * BATCH_SECONDS) == 800
