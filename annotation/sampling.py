"""Text sampling, overlap selection, queue assignment and rebalancing plans.

Plain Python, no Django: the functions take and return ids, so they are tested on their own and
the service layer (``annotation.services``) turns their plans into rows. Every random choice
comes from a ``random.Random`` seeded with a string built from the campaign seed, so the same
inputs always give the same sample, the same queues and the same sides.

Two rules shape every plan:
- a text's pairs stay with one annotator where possible (a "text group"), and sit next to each
  other in the queue, so the annotator reads the text once;
- an overlap text goes to two *different* annotators, and no annotator ever holds the same item
  twice.
Load is counted in items.
"""

import random
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

_Value = TypeVar("_Value")


def seeded_random(seed: object, *parts: object) -> random.Random:
    # String seeds are hashed with SHA-512 by ``random``: stable across runs and machines.
    return random.Random(":".join(str(part) for part in (seed, *parts)))


def sample_texts(text_ids: Iterable[int], count: int, seed: object) -> list[int]:
    """Pick ``count`` of ``text_ids`` at random, returned in their original order."""
    text_ids = list(text_ids)
    if count < 1:
        raise ValueError("Sample at least one text.")
    if count > len(text_ids):
        raise ValueError(f"Cannot sample {count} texts from {len(text_ids)}.")
    chosen = set(seeded_random(seed, "sample").sample(text_ids, count))
    return [text_id for text_id in text_ids if text_id in chosen]


def select_overlap(text_ids: Iterable[int], share: float, seed: object) -> set[int]:
    """The texts judged twice: ``round(share * len(text_ids))`` of them, chosen at random."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"The overlap share must lie between 0 and 1, not {share}.")
    text_ids = list(text_ids)
    count = round(share * len(text_ids))
    return set(seeded_random(seed, "overlap").sample(text_ids, count))


def a_on_left(seed: object, item_id: int, annotator_id: int) -> bool:
    """The side system A is shown on, for one assignment: a fair coin seeded by campaign and assignment."""
    return seeded_random(seed, "side", item_id, annotator_id).random() < 0.5


def assign_queues(
    text_items: Mapping[int, Sequence[int]],
    overlap: Collection[int],
    annotators: Iterable[int],
    seed: object,
    barred: Collection[tuple[int, int]] = frozenset(),
) -> dict[int, list[int]]:
    """Give every text's items to one annotator, and overlap texts to a second, different one.

    ``barred`` holds (annotator, text) pairs that must not be made: an annotator who holds the
    text in another campaign (``annotation.services.campaigns``); a text nobody may take raises
    ValueError.

    ``text_items`` maps text id -> list of item ids (in a fixed order); ``annotators`` is a list
    of annotator ids. Each text group goes to the least loaded annotator who does not hold that
    text yet (ties broken in a seeded order), which keeps loads within one text group of each
    other. Returns annotator id -> ordered list of item ids: text groups in a seeded order, the
    pairs of one text adjacent and themselves shuffled.
    """
    annotators = list(annotators)
    if not annotators:
        raise ValueError("A campaign needs at least one annotator.")
    if overlap and len(annotators) < 2:
        raise ValueError("Overlap texts need at least two annotators.")
    unknown = set(overlap) - set(text_items)
    if unknown:
        raise ValueError(f"Overlap texts not in the sample: {sorted(unknown)}.")

    tie_order = {annotator: rank for rank, annotator in enumerate(_shuffled(annotators, seed, "tie-order"))}
    load = dict.fromkeys(annotators, 0)
    groups: defaultdict[int, list[tuple[int, list[int]]]] = defaultdict(list)  # annotator -> [(text, items)]
    # Larger groups first, then text order: the greedy choice balances best that way.
    ordered_texts = sorted(text_items, key=lambda text: -len(text_items[text]))
    for text in ordered_texts:
        items = list(text_items[text])
        copies = 2 if text in overlap else 1
        holders: set[int] = set()
        for _ in range(copies):
            candidates = [a for a in annotators if a not in holders and (a, text) not in barred]
            if not candidates:
                raise ValueError(f"No annotator may take text {text}.")
            annotator = min(candidates, key=lambda candidate: (load[candidate], tie_order[candidate]))
            holders.add(annotator)
            groups[annotator].append((text, items))
            load[annotator] += len(items)
    return {annotator: _queue_from_groups(groups[annotator], seed, annotator) for annotator in annotators}


def _shuffled(values: Iterable[_Value], seed: object, *parts: object) -> list[_Value]:
    values = list(values)
    seeded_random(seed, *parts).shuffle(values)
    return values


def _queue_from_groups(groups: list[tuple[int, list[int]]], seed: object, annotator: int) -> list[int]:
    queue: list[int] = []
    for text, items in _shuffled(groups, seed, "queue", annotator):
        queue.extend(_shuffled(items, seed, "pairs", annotator, text))
    return queue


@dataclass(frozen=True)
class Slot:
    """One existing assignment, as the rebalancer sees it."""

    key: int  # the assignment's id, passed back in the plan
    item: int
    text: int
    annotator: int
    done: bool
    position: int
    started: bool = False  # pending, but some aspects are already judged: the annotator is on it
    # Its annotator may no longer judge it (``Assignment.objects.not_withheld``): it moves like a leaver's.
    withheld: bool = False


@dataclass
class RebalancePlan:
    moves: dict[int, int] = field(default_factory=dict)  # slot key -> new annotator id
    dropped: list[int] = field(default_factory=list)  # slot keys no active annotator can take
    queues: dict[int, list[int]] = field(default_factory=dict)  # annotator id -> slot keys of pending work, in order


def plan_rebalance(
    slots: Sequence[Slot],
    active_annotators: Iterable[int],
    seed: object,
    barred: Collection[tuple[int, int]] = frozenset(),
) -> RebalancePlan:
    """Plan how pending work moves after annotators join or leave.

    Done slots never move. Pending slots of annotators no longer active, and withheld ones, go, a text group at a
    time, to the least loaded active annotator holding nothing of that text; if nobody can take
    the whole group, item by item to anyone not holding that item; if nobody can, the slot is
    dropped (an overlap copy with a single annotator left). ``barred`` holds the (annotator,
    text) pairs that must not be made: an annotator shown the text's gold, or holding the text in
    another campaign, who would judge its first four aspects knowing the gold (and, in a campaign
    with Ground truth, which side it is); a pair of that text never goes to them. Then whole pending groups move from
    the most loaded annotators to the least loaded while that narrows the gap, so a newcomer
    takes work from the busiest; a group with a started item stays with its annotator. Load here is pending items: finished work needs no more time.
    Queues keep their order; moved groups join the end, pairs of one text side by side.
    """
    active = list(active_annotators)
    if not active:
        raise ValueError("At least one annotator must stay active.")
    planner = _Rebalancer(slots, active, seed, barred)
    planner.place_orphans()
    planner.even_out()
    return planner.plan()


class _Rebalancer:
    def __init__(
        self, slots: Sequence[Slot], active: list[int], seed: object, barred: Collection[tuple[int, int]]
    ) -> None:
        self.slots = {slot.key: slot for slot in slots}
        self.active = active
        self.barred = barred
        self.tie_order = {annotator: rank for rank, annotator in enumerate(_shuffled(active, seed, "rebalance"))}
        self.owner = {slot.key: slot.annotator for slot in slots}
        self.items_held: defaultdict[int, set[int]] = defaultdict(set)  # annotator -> items they hold, done or pending
        self.text_slots: defaultdict[tuple[int, int], int] = defaultdict(
            int
        )  # (annotator, text) -> how many slots they hold on it
        self.load = dict.fromkeys(active, 0)  # pending items of each active annotator
        self.withheld = {slot.key for slot in slots if slot.withheld and not slot.done}  # until they move
        for slot in slots:
            self.items_held[slot.annotator].add(slot.item)
            self.text_slots[(slot.annotator, slot.text)] += 1
            if not slot.done and slot.annotator in self.load and slot.key not in self.withheld:
                self.load[slot.annotator] += 1
        self.moves: dict[int, int] = {}
        self.dropped: list[int] = []

    def rank(self, annotator: int) -> tuple[int, int]:
        return (self.load[annotator], self.tie_order[annotator])

    def holds_text(self, annotator: int, text: int) -> bool:
        return self.text_slots[(annotator, text)] > 0

    def may_take_text(self, annotator: int, text: int) -> bool:
        """Whether a whole text group may go to ``annotator``: they hold nothing of it, and are not barred from it."""
        return not self.holds_text(annotator, text) and (annotator, text) not in self.barred

    def may_take(self, annotator: int, slot: Slot) -> bool:
        return slot.item not in self.items_held[annotator] and (annotator, slot.text) not in self.barred

    def move(self, slot: Slot, annotator: int) -> None:
        previous = self.owner[slot.key]
        self.items_held[previous].discard(slot.item)
        self.text_slots[(previous, slot.text)] -= 1
        if previous in self.load and slot.key not in self.withheld:
            self.load[previous] -= 1
        self.withheld.discard(slot.key)
        self.owner[slot.key] = annotator
        self.items_held[annotator].add(slot.item)
        self.text_slots[(annotator, slot.text)] += 1
        self.load[annotator] += 1
        self.moves[slot.key] = annotator

    def movable_groups(self, annotator: int) -> dict[int, list[Slot]]:
        groups: defaultdict[int, list[Slot]] = defaultdict(list)
        for key, holder in self.owner.items():
            slot = self.slots[key]
            if holder == annotator and not slot.done:
                groups[slot.text].append(slot)
        return {text: group for text, group in groups.items() if not any(slot.started for slot in group)}

    def place_orphans(self) -> None:
        orphans: defaultdict[tuple[int, int], list[Slot]] = defaultdict(list)
        for key, holder in self.owner.items():
            slot = self.slots[key]
            if (holder not in self.load or key in self.withheld) and not slot.done:
                orphans[(holder, slot.text)].append(slot)
        for (_, text), group in sorted(orphans.items(), key=lambda entry: (-len(entry[1]), entry[0][1])):
            takers = [annotator for annotator in self.active if self.may_take_text(annotator, text)]
            if takers:
                taker = min(takers, key=self.rank)
                for slot in group:
                    self.move(slot, taker)
                continue
            for slot in group:
                takers = [annotator for annotator in self.active if self.may_take(annotator, slot)]
                if takers:
                    self.move(slot, min(takers, key=self.rank))
                else:
                    self.dropped.append(slot.key)
        for key in self.dropped:
            del self.owner[key]

    def even_out(self) -> None:
        """Move whole pending groups from busier to idler annotators while each move narrows the gap.

        A move of g items from a giver with load x to a receiver with load y < x - g lowers the
        sum of squared loads, so the loop ends.
        """
        while self._move_one_group():
            pass

    def _move_one_group(self) -> bool:
        for giver in sorted(self.active, key=self.rank, reverse=True):
            groups = self.movable_groups(giver)
            # Groups at the end of the giver's queue are the furthest from being started.
            by_lateness = sorted(groups.items(), key=lambda entry: -max(slot.position for slot in entry[1]))
            for receiver in sorted(self.active, key=self.rank):
                if self.load[receiver] >= self.load[giver]:
                    break
                for text, group in by_lateness:
                    if self.may_take_text(receiver, text) and self.load[receiver] + len(group) < self.load[giver]:
                        for slot in group:
                            self.move(slot, receiver)
                        return True
        return False

    def plan(self) -> RebalancePlan:
        # A group can move away and back while loads even out: that is no move at all.
        self.moves = {key: owner for key, owner in self.moves.items() if owner != self.slots[key].annotator}
        queues: dict[int, list[int]] = {}
        for annotator in self.active:
            mine = [
                self.slots[key]
                for key, holder in self.owner.items()
                if holder == annotator and not self.slots[key].done
            ]
            queue = [slot.key for slot in sorted(mine, key=_queue_order) if slot.key not in self.moves]
            arrived: defaultdict[int, list[Slot]] = defaultdict(list)
            for slot in mine:
                if slot.key in self.moves:
                    arrived[slot.text].append(slot)
            for text in sorted(arrived):
                queue.extend(slot.key for slot in sorted(arrived[text], key=_queue_order))
            queues[annotator] = queue
        return RebalancePlan(moves=self.moves, dropped=self.dropped, queues=queues)


def _queue_order(slot: Slot) -> tuple[int, str]:
    return (slot.position, str(slot.key))
