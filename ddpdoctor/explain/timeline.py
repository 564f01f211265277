"""One cross-rank timeline: every input's observations merged, attributed and ordered.

The same failure is often printed several times: the rank's own traceback, torchrun's failure
table, the error file, Burn's wrapper around a worker's panic, the launcher's exit line. The
timeline folds those sightings into one observation (the richest chain, the printer's own rank,
the earliest clock reading), pairs launcher exit reports by process id, infers the world size
(ranks seen anywhere, `WORLD_SIZE`/`nranks` hints), and orders observations: by their clock when
every reading compares (see :mod:`clock`), by line within one input, and by input order otherwise.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate
from operator import itemgetter

from ddpdoctor.explain.attempts import path_attempt
from ddpdoctor.explain.clock import comparable
from ddpdoctor.explain.collectives import MAX_NAMED
from ddpdoctor.explain.observations import (
    RECENT_LINES,
    AgentSignalObs,
    CollectiveObs,
    ExceptionObs,
    ExitObs,
    InterfaceObs,
    Observation,
    ProgressObs,
    RecentLineObs,
    StallObs,
    StopObs,
)
from ddpdoctor.explain.wording import (
    ENDS_NORMALLY,
    PROGRESS_COUNTER,
    SETTING,
    SIZE_READING,
    SIZE_SETTING,
    STATES_A_HALT,
    UNDER_WAY,
    WAITS_IN_A_LOOP,
    WAITS_ON_SOMETHING,
    WORK_COUNT,
    numberless,
)
from ddpdoctor.matching import LazyRegex
from ddpdoctor.units import GIB, parse_size

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any

    # How a rank is picked as odd among the values of lines every rank printed once, by position.
    _Pick = Callable[[dict[int, tuple[RecentLineObs, Any]], Callable[[Any], Any]], int | None]

MAX_WORLD = 1 << 20


class Timeline:
    """Merged observations of every input, with the job's ranks."""

    def __init__(
        self,
        observations: Iterable[Observation],
        world_hints: Iterable[int] = (),
        input_ranks: Iterable[int] = (),
    ) -> None:
        merged: list[Observation] = []
        progress: dict[int, ProgressObs] = {}
        recent: dict[int, list[RecentLineObs]] = {}
        unlabelled: list[RecentLineObs] = []
        # NCCL on interfaces other hosts cannot reach: facts that explain failures, not failures.
        self.interfaces: list[InterfaceObs] = []
        # The workers a launcher stopped with a signal (their pids): a death by that signal is its doing.
        self.stopped_pids: set[int] = set()
        # Launcher agents that were themselves sent a signal: the job stopped from outside.
        self.agent_signals: list[AgentSignalObs] = []
        # Inputs whose output stops where the processes wait for one another (the last resort of a verdict).
        self.stalls: list[StallObs] = []
        for obs in observations:
            if isinstance(obs, ProgressObs):
                if obs.rank is not None:
                    progress[obs.rank] = obs
            elif isinstance(obs, RecentLineObs):
                if obs.rank is not None:
                    recent.setdefault(obs.rank, []).append(obs)
                else:
                    unlabelled.append(obs)
            elif isinstance(obs, InterfaceObs):
                self.interfaces.append(obs)
            elif isinstance(obs, AgentSignalObs):
                self.agent_signals.append(obs)
            elif isinstance(obs, StallObs):
                self.stalls.append(obs)
            elif isinstance(obs, StopObs):
                if obs.pid is not None:
                    self.stopped_pids.add(obs.pid)
            else:
                merged.append(obs)
        self.exits = _merge_exits([o for o in merged if isinstance(o, ExitObs)])
        others = _merge_failures([o for o in merged if not isinstance(o, ExitObs)])
        self.warnings = [o for o in others if o.warning]
        self.failures = [o for o in others if not o.warning]
        self.progress = progress
        self._recent = recent
        # The last lines no rank label claims (a plain console's prints), in input order.
        self.unlabelled = unlabelled
        # Each rank's last lines numbers aside, and how many ranks printed each such line.
        self._shapes = {rank: [numberless(o.text) for o in lines] for rank, lines in recent.items()}
        self._printers = Counter(shape for shapes in self._shapes.values() for shape in set(shapes))
        self._shared_words = _shared_words(recent)
        self._alike: dict[str, str] = {}  # each text's shape (see alike), as read once
        self._largest_sizes: list[tuple[float, int]] | None = None  # the two ranks that read the most
        self.ranks = self._ranks() | {r for r in input_ranks if 0 <= r < MAX_WORLD}
        hints = [w for w in world_hints if 0 < w <= MAX_WORLD]
        self.world_hinted = bool(hints)
        seen = max(self.ranks) + 1 if self.ranks else 0
        self.world_size = max([seen, *hints]) if (hints or seen) else None

    def _ranks(self) -> set[int]:
        ranks: set[int] = set(self.progress)
        for obs in [*self.failures, *self.exits, *self.warnings]:
            if obs.rank is not None:
                ranks.add(obs.rank)
        return {r for r in ranks if 0 <= r < MAX_WORLD}

    def departure(
        self, rank: int, *, after_shared: bool = False, alone: bool = False
    ) -> RecentLineObs | None:
        """The first line a rank printed after the last one its peers printed too (numbers aside): where
        it went its own way (`waiting for the lock ...`, `early stopping at epoch 2`) while they went on.
        None when its last line is one they printed too (it stopped mid-routine: a sleep, a hang in a
        call) or when no peer's lines are known to compare with. A rank that printed none of its peers'
        lines went its own way from its first line, when all its lines are kept (`after_shared`: not
        then, only after a line its peers printed too). With no peer's lines to compare, its last line
        when `alone`."""
        own = self._recent.get(rank, [])
        if not own:
            return None
        if len(self._recent) < 2:
            return own[-1] if alone else None
        shapes = self._shapes[rank]
        files = sorted({line.file_index for line in own})
        if len(files) > 1:
            # The rank's output split over files with no order between them (torchrun's stdout.log and
            # stderr.log): where it went its own way is read in each file, the last file's first.
            for index in reversed(files):
                kept = [i for i, line in enumerate(own) if line.file_index == index]
                found = self._departure_in([own[i] for i in kept], [shapes[i] for i in kept], after_shared)
                if found is not None:
                    return found
            return None
        return self._departure_in(own, shapes, after_shared)

    def _departure_in(
        self, own: list[RecentLineObs], shapes: list[str], after_shared: bool
    ) -> RecentLineObs | None:
        for index in range(len(own) - 1, -1, -1):
            if self._printers[shapes[index]] > 1:  # another rank printed it too
                return own[index + 1] if index + 1 < len(own) else None
        return own[0] if len(own) < RECENT_LINES and not after_shared else None

    def alike(self, text: str) -> str:
        """What lines every rank prints alike share: the line with its numbers, the words not every rank says
        (its own file, shard, template or dataset: `Seaquest`, `val/era5_band2.zarr`) and each setting's value
        (`use_batching=True`, `slice=last_24h+backfill_2019` where they say `slice=last_24h`) read as `#`."""
        if (shape := self._alike.get(text)) is None:
            shared = self._shared_words
            kept = (
                text
                if shared is None
                else _TOKEN.sub(
                    lambda m: m.group() if m.group() in shared else "#", _SET_VALUE.sub("=#", text)
                )
            )
            shape = self._alike[text] = numberless(kept)
        return shape

    def statement(self, text: str) -> str:
        """What lines one print statement of the script writes share on every rank: their shape as lines
        alike (see alike), a list of values as one value whatever its length (`histogram [#, #, #, #, #]`
        where the peers print four), a setting's words left out (`columns=co2_ppm,rh_pct,baro_hpa`)."""
        return self._setting_shape(_VALUE_LIST.sub("[#]", text))

    def _reading_shape(self, text: str) -> str:
        """What lines that read out sizes share when only their numbers (`2,621,442` one of them), units and
        own names differ."""
        return self.alike(_GROUPED_NUMBER.sub("0", SIZE_READING.sub("#", text)))

    def _setting_shape(self, text: str) -> str:
        """What lines that state settings share, their values left out (`cache part#: # graphs, bond_features=`)."""
        return self.alike(SETTING.sub(lambda m: m.group()[: m.start(1) - m.start()], text))

    def last_lines(self, rank: int) -> list[RecentLineObs]:
        """The rank's last lines (error records too), in order."""
        return list(self._recent.get(rank, []))

    def healthy_lines(self, rank: int) -> list[RecentLineObs]:
        """The rank's last lines that are not error or warning records: what it did."""
        return [line for line in self._recent.get(rank, []) if not _a_record(line)]

    def lines_from(self, rank: int, line: Observation) -> list[RecentLineObs]:
        """The rank's last lines from this one on (the line itself included, when it is one of them)."""
        start = (line.file_index, line.line)
        return [own for own in self._recent.get(rank, []) if (own.file_index, own.line) >= start]

    def latest_round(self, rank: int, line: Observation) -> Observation:
        """The rank's last healthy line when it repeats this one, numbers aside (a wait loop's latest
        round: `not ready, polling again [waited 15s]` after `[waited 0s]`), else this line."""
        last = self.progress.get(rank)
        if (
            last is not None
            and last.file == line.file
            and last.line > line.line
            and numberless(last.text) == numberless(line.text)
        ):
            return last
        return line

    def shared_wait(self, rank: int) -> RecentLineObs | None:
        """The rank's last line that says it waits on something (`waiting for shard-003.ready`), or the
        first round of the wait loop its output ends in (`assay not in yet, retrying in 5s`), when its
        peers printed that line too (numbers aside): a step of the routine every rank went through, the
        one this rank never got past."""
        own = self._recent.get(rank, [])
        shapes = self._shapes.get(rank, [])
        if own and self._printers[shapes[-1]] > 1 and WAITS_IN_A_LOOP.search(own[-1].text):
            return last_run(own)[0]
        return next(
            (
                line
                for line, shape in zip(reversed(own), reversed(shapes), strict=True)
                if self._printers[shape] > 1 and WAITS_ON_SOMETHING.search(line.text)
            ),
            None,
        )

    def first_halt(self, rank: int) -> RecentLineObs | None:
        """With no peer's lines to set beside the rank's, the first of its last lines that says it
        stops (`early stopping at epoch 6`, before `training finished`)."""
        if len(self._recent) >= 2:
            return None
        return next((line for line in self._recent.get(rank, []) if STATES_A_HALT.search(line.text)), None)

    def uneven_count(self) -> tuple[int, RecentLineObs] | None:
        """The one rank whose announced amount of work differs from all its peers': a line every rank
        of three or more printed once, alike but for a count of batches or steps (`kept 61 pairs, 6
        batches` where the others say `5 batches`) that one rank alone gives otherwise."""
        return self._odd_one_out(WORK_COUNT, self.alike)

    def odd_setting(self) -> tuple[int, RecentLineObs] | None:
        """The one rank that states a setting otherwise than all its peers: a line every rank of three
        or more printed once, alike but for a named value (`bond_features=False` where the others say
        `True`, `trainable params: 5120` where they say `4096`) that one rank alone gives otherwise."""
        return self.odd_word_setting() or self._odd_named_size() or self._odd_key_set()

    def odd_word_setting(self) -> tuple[int, RecentLineObs] | None:
        """The one rank that states a setting in words otherwise than all its peers (`feature cache: memory`
        where they say `disk`, `tasks=cls` where they say `tasks=cls,reg`): how it was configured, not a
        count of its data. Lines whose words around their settings differ (a camera's name) are read by
        those settings' keys (`bands=R,G,B,NIR` where they say `bands=R,G,B`, `density source: snow pits`
        where they say `regional table`)."""
        return self._odd_one_out(SETTING, self._setting_shape) or _only(self._odd_ranks(_word_settings))

    def odd_count(self) -> tuple[int, RecentLineObs] | None:
        """The one rank that counts otherwise than its peers, who agree, in a line every rank of three or
        more printed once: a list of another length (see odd_list_length), or else a count of things in
        lines alike (see alike) but for their numbers (`7 length bins` where they say 4), or in lines that
        count the same things among other words (`Philadelphia: ... fitting 11 constituents` where `Lewes:
        ... fitting 8 constituents`): it holds a tensor of another size."""
        return (
            self.odd_list_length()
            or self._odd_one_out(_THINGS_COUNT, self.alike)
            or _only(self._odd_ranks(_counts_of_things))
        )

    def odd_list_length(self) -> tuple[int, RecentLineObs] | None:
        """The one rank that prints a list of numbers or names of another length than its peers, who agree,
        in a line every rank of three or more printed once (`grade counts=[520, 279, 109, 60]` where every
        other rank lists five, `stems=['bass', 'drums', 'other', 'piano']`; the lists known by their names,
        whatever else differs in the line)."""

        def read(text: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
            lists = list(_VALUE_LIST.finditer(text))
            if not lists:
                return None
            return tuple(_list_name(text[: m.start()]) for m in lists), tuple(
                m.group().count(",") + 1 for m in lists
            )

        return _only(self._odd_ranks(read))

    def lists_that_differ(self) -> tuple[RecentLineObs, RecentLineObs, str] | None:
        """Two lines of one print statement, written by processes of their own, whose lists differ in length
        (`still 0: grade counts [2.0, 47.0, 79.0]` beside `still 1: grade counts [2.0, 60.0, 64.0, 2.0]`), or
        that list the same names in another order (`totals ready: ['petrol', 'diesel']` beside `['diesel',
        'petrol']`: the processes go through them, and their collectives, in other orders), with which of the
        two (`length`, `order`): under rank labels, a line every rank printed once; without them, a run of
        consecutive lines no longer than the job has ranks (a statement every rank reached at once, not a
        history a rank grew). None when every such statement lists alike."""

        def read(text: str) -> tuple[str, tuple[int, ...]] | None:
            return (self.statement(text), _list_lengths(text)) if _VALUE_LIST.search(text) else None

        groups = [
            [line for line, _ in stated.values()]
            for stated in self._printed_once_by_every_rank(read, least=2)
        ]
        if self.world_size is not None:
            run: list[RecentLineObs] = []
            for line in self.unlabelled:
                if run and not (
                    (line.file_index, line.line) == (run[-1].file_index, run[-1].line + 1)
                    and self.statement(line.text) == self.statement(run[-1].text)
                ):
                    groups.append(run)
                    run = []
                if line.count == 1 and _VALUE_LIST.search(line.text):
                    run.append(line)
            groups.append(run)
            groups = [lines for lines in groups if len(lines) <= self.world_size]
        for lines in groups:
            lengths = [_list_lengths(line.text) for line in lines]
            odd = next(
                (line for line, length in zip(lines, lengths, strict=True) if length != lengths[0]), None
            )
            if odd is not None:
                return lines[0], odd, "length"
            names = [_listed_names(line.text) for line in lines]
            odd = next(
                (
                    line
                    for line, listed in zip(lines, names, strict=True)
                    if listed != names[0] and sorted(listed) == sorted(names[0])
                ),
                None,
            )
            if odd is not None:
                return lines[0], odd, "order"
        return None

    def odd_value(self) -> tuple[int, RecentLineObs] | None:
        """The one rank that gives a value otherwise than all its peers, who agree on it, in a line every
        rank of three or more printed once, alike (see alike) but for its values: a version, a dtype, a
        dimension, a list of names (`holistic 0.10.14, array (24, 48, 75, 3)` where they say `0.10.9` and
        `2`; `pKd float64` where they say `float32`; `passbands ztfg,ztfr,ztfi` where they list two)."""
        shared = self._shared_words or frozenset()

        def read(text: str) -> tuple[str, list[str]]:
            # torch's repr of a tensor leaves out the default dtypes: the dtype it names, or the one its
            # elements are printed as, is a value (`tensor([...], dtype=torch.float64)` where they print
            # `tensor([...])`, `tensor([2, 3])` where they print `tensor([2.0000, 2.5000])`).
            dtypes: list[str] = []
            if "tensor(" in text:
                # (its elements are measurements, which differ by chance: only their dtype is compared)
                dtypes, text = (
                    [_tensor_dtype(text)],
                    _TENSOR_ELEMENTS.sub("tensor([#", _TENSOR_DTYPE.sub("", text)),
                )
            # A list of names is one value (`passbands ztfg,ztfr,ztfi` where they list two).
            lists = dtypes + _NAME_LIST.findall(text)
            text = _NAME_LIST.sub("#", text)
            # A time of day, a date or a duration differs between ranks by chance: not a value they hold.
            kept = _BY_CHANCE.sub(" ", text)
            return self.alike(text), lists + [
                m.group()
                for m in _VALUE_PIECE.finditer(kept)
                if m.group()[0].isdigit() or m.group() not in shared
            ]

        return _only(self._odd_ranks(read))

    def outlying_count(self) -> tuple[int, RecentLineObs] | None:
        """The one rank whose count of items stands OUTSIZED-fold over every peer's in a line every rank of
        three or more printed once, alike in shape (`45 docs` where they say 3 or 4): it holds far more
        of them than its peers do."""
        return self._odd_one_out(_ITEM_COUNT, self.alike, _outlier)

    def one_ahead(self) -> tuple[int, Observation] | None:
        """The one rank of three or more whose progress counter went past all its peers' (`epoch 1`
        where every other rank last said `epoch 0`, and they all agree): with its line where it did."""
        ranks = sorted(self._recent)
        if len(ranks) < 3 or (self.world_size is not None and len(ranks) < self.world_size):
            return None
        reached: dict[str, dict[int, Observation]] = {}
        for rank in ranks:
            # Its last lines keep a run of lines alike but for their numbers as its first: its last
            # healthy line is the run's latest.
            last = self.progress.get(rank)
            for line in [*self._recent[rank], *([last] if last is not None else [])]:
                if isinstance(line, RecentLineObs) and line.error_record:
                    continue
                for found in PROGRESS_COUNTER.finditer(line.text):
                    unit, number = found.group(1).lower(), int(found.group(2))
                    best = reached.setdefault(unit, {}).get(rank)
                    if best is None or number > _counter(best, unit):
                        reached[unit][rank] = line
        ahead: list[tuple[int, Observation]] = []
        for unit, lines in reached.items():
            if len(lines) != len(ranks):
                continue
            counts = {rank: _counter(line, unit) for rank, line in lines.items()}
            top = max(counts.values())
            leaders = [rank for rank, count in counts.items() if count == top]
            if len(leaders) == 1 and len(set(counts.values())) == 2:
                ahead.append((leaders[0], lines[leaders[0]]))
        return ahead[0] if len({rank for rank, _ in ahead}) == 1 else None

    def _printed_once_by_every_rank(
        self, read: Callable[[str], tuple[Any, Any] | None], least: int = 3
    ) -> list[dict[int, tuple[RecentLineObs, Any]]]:
        """The ranks' lines grouped by the key `read` gives a line (with what else it reads from it), for
        the groups in which each of `least` ranks or more, every rank of the job, printed exactly one
        line; nothing when fewer ranks' lines are known."""
        ranks = sorted(self._recent)
        if len(ranks) < least or (self.world_size is not None and len(ranks) < self.world_size):
            return []
        groups: dict[Any, dict[int, list[tuple[RecentLineObs, Any]]]] = {}
        for rank in ranks:
            for line in self._recent[rank]:
                if (found := read(line.text)) is not None:
                    key, value = found
                    groups.setdefault(key, {}).setdefault(rank, []).append((line, value))
        return [
            {rank: printed[0] for rank, printed in lines.items()}
            for lines in groups.values()
            if len(lines) == len(ranks) and all(len(printed) == 1 for printed in lines.values())
        ]

    def _odd_one_out(
        self,
        values: LazyRegex | re.Pattern[str],
        shape_of: Callable[[str], str],
        pick: _Pick | None = None,
    ) -> tuple[int, RecentLineObs] | None:
        """The one rank whose line differs from its peers' in one of the `values` (group 1) of a line
        every rank printed once, alike in shape (by `pick`: alone against peers who agree, by default);
        None unless exactly one rank is odd."""

        def read(text: str) -> tuple[str, list[str]] | None:
            found = [m.group(1) for m in values.finditer(text)]
            return (shape_of(text), found) if found else None

        return _only(self._odd_ranks(read, pick))

    def _odd_ranks(
        self,
        read: Callable[[str], tuple[Any, Sequence[Any]] | None],
        pick: _Pick | None = None,
    ) -> dict[int, RecentLineObs]:
        """The ranks whose line differs from their peers' in one of the values `read` gives it (by `pick`),
        among the lines every rank printed once that `read` keys alike (by default, alone against peers who
        agree), each with that line."""
        pick = pick or _lone
        odd: dict[int, RecentLineObs] = {}
        for stated in self._printed_once_by_every_rank(read):
            positions = range(min(len(found) for _, found in stated.values()))
            alone = {
                rank for position in positions if (rank := pick(stated, itemgetter(position))) is not None
            }
            # Another rank alone in each of the line's values: measurements that differ by chance
            # (`SDR -2.15 -0.59` where the peers read `-2.14 -0.58`), not a value one rank holds.
            if len(alone) == 1:
                rank = alone.pop()
                odd[rank] = stated[rank][0]
        return odd

    def sized_in_ratio(self, ratio: float, receiver: int | None) -> tuple[int, RecentLineObs] | None:
        """The one rank that states a whole number alone, where its peers agree, in the proportion of the
        sizes a size check compared (`ratio`: what arrived over what the receiver expected): a sender's in
        that proportion to theirs (`calib_bins: 50` where they say 20, for 100 bytes against 40), the
        `receiver`'s in the inverse one (`n_bins: 8` where they say 12, for 120 bytes against 80), a named
        number, a count of things (`425 trial periods` where they count 104, for 1700 bytes against 416) or
        the elements of a shape (`98x98 ft grid` where they say `100x85`, for 4804 bytes against 4252) or
        the bytes of an element its dtype names (`torch.float64` where they say `torch.float32`, for 96 bytes
        against 48).
        Its other lone values (`lr: 0.02`) do not count against it."""
        pick = _in_ratio(ratio, receiver)
        return (
            self._odd_named_size(pick)
            or _only(self._odd_ranks(_counts_of_things, pick))
            or _only(self._odd_ranks(_elements_of_shapes, pick))
            or _only(self._odd_ranks(_dtype_sizes, pick))
        )

    def _odd_named_size(self, pick: _Pick | None = None) -> tuple[int, RecentLineObs] | None:
        """The one rank that states a named number otherwise than all its peers, who agree on it
        (`params=128910` where they say `params=128780`), in a line every rank of three or more printed
        once with the same named numbers, whatever else differs in it (another trial's settings); or,
        where each rank printed several such lines, once alike but for its numbers (`sync head.weight
        shape=(13, 64) packed_bytes=416` where they say `shape=(12, 64) packed_bytes=384`)."""

        def named(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
            sizes = list(SIZE_SETTING.finditer(text))
            if not sizes:
                return None
            # The keys numbers aside (`shard-002.meta.json: 64`), each with its value.
            return tuple(numberless(m.group(1)) for m in sizes), tuple(m.group(2) for m in sizes)

        def numbered(text: str) -> tuple[str, tuple[str, ...]] | None:
            found = named(text)
            return (self.alike(text), found[1]) if found is not None else None

        odd = self._odd_ranks(named, pick) or self._odd_ranks(numbered, pick)
        return _only(odd)

    def _odd_key_set(self) -> tuple[int, RecentLineObs] | None:
        """The one rank whose list of `key=value` settings names other keys than its peers' (`... gain=0.3,
        time_shift=0.3, mixup=0.2` where every other rank stops at `time_shift`), in a line every rank
        of three or more printed once, alike up to its first setting; None unless exactly one is odd."""

        def read(text: str) -> tuple[str, tuple[tuple[str, ...]]] | None:
            settings = list(_SETTING_KEY.finditer(text))
            if len(settings) < 2:
                return None
            # The whole list of keys is the one value compared.
            return self.alike(text[: settings[0].start()]), (tuple(m.group(1) for m in settings),)

        return _only(self._odd_ranks(read))

    def last_line(self, rank: int) -> Observation | None:
        """The last line a rank printed (an error record too; its last healthy line where a run of lines
        that differ only in their numbers stands as its first), if any of its lines were read."""
        lines = self._with_progress(rank)
        return lines[-1] if lines else None

    def memory_climb(self, rank: int) -> tuple[Observation, float, float] | None:
        """The rank's last healthy line that reads out a size, among its last lines, with that size and
        the one its first line of the same shape read (`mask_cache 0.37 GiB` ... `3.49 GiB`), when it grew
        at least MEMORY_CLIMB-fold to MEMORY_CLIMB_TO bytes or more: the memory it held was climbing
        when it stopped (a line of another shape, `step 75 codes_used=133/256`, may come after it)."""
        healthy = [line for line in self._with_progress(rank) if not _a_record(line)]
        last = next((line for line in reversed(healthy) if SIZE_READING.search(line.text)), None)
        if last is None:
            return None
        shape = numberless(last.text)
        first = next(line for line in healthy if numberless(line.text) == shape)
        for before, now in zip(_sizes(first.text), _sizes(last.text), strict=False):
            if now >= MEMORY_CLIMB_TO and now >= MEMORY_CLIMB * before:
                return last, before, now
        return None

    def _with_progress(self, rank: int) -> list[Observation]:
        """The rank's last lines with its last healthy line in its place (a run of lines that differ
        only in their numbers is kept among the last lines as its first)."""
        lines: list[Observation] = list(self._recent.get(rank, []))
        progress = self.progress.get(rank)
        if progress is not None and all(
            (o.file_index, o.line) != (progress.file_index, progress.line) for o in lines
        ):
            lines.append(progress)
        return sorted(lines, key=lambda o: (o.file_index, o.line))

    def stopped_together(self) -> str | None:
        """How every rank of two or more stops at one point, none saying it finished: `under way` when each
        stops at a line that announces a step under way (`gap-filling air_temp (bandwidth=90 min)`,
        `building ray batch ...`), `alike` when every rank of the world stops at a line of one shape (`page
        0: 15038 patches x 3072 template patches`); None otherwise. Either is what processes stopped
        mid-step leave, and what a run that printed nothing more until it ended well leaves too."""
        ends = [lines[-1] for lines in map(self._with_progress, self._recent) if lines]
        if len(ends) < 2 or self._a_rank_finished() or any(_a_record(end) for end in ends):
            return None
        if all(UNDER_WAY.search(end.text.strip()) for end in ends):
            return "under way"
        everyone = self.world_size is None or len(ends) >= self.world_size
        return "alike" if everyone and len({self.alike(end.text) for end in ends}) == 1 else None

    def outlying_last_number(self) -> tuple[int, Observation, float, float] | None:
        """Where every rank stops at a line of one shape (see stopped_together), the one rank whose number
        in it stands ORDERS_OVER-fold over every peer's at the same place (`depth=38400` where its peer reads
        `depth=61`, `longest 7200.0s` where they read `10.0s`): with its line, its number and the peers'
        largest. Numbers under one (a loss) are not compared; none is found when the lines hold different
        counts of numbers, or when another rank's number too stands TAKING_MOST-fold over its peers'."""
        ends = {rank: lines[-1] for rank in self._recent if (lines := self._with_progress(rank))}
        numbers = {rank: [float(n) for n in _PLAIN_NUMBER.findall(end.text)] for rank, end in ends.items()}
        if len(numbers) < 2 or len({len(found) for found in numbers.values()}) != 1:
            return None
        over: list[tuple[float, int, float, float]] = []  # (fold, rank, its number, the peers' largest)
        for position in range(len(next(iter(numbers.values())))):
            # The largest two at this place: every rank's peers' largest is one of them.
            top, second = sorted(((found[position], rank) for rank, found in numbers.items()), reverse=True)[
                :2
            ]
            now, rank = top
            peers = second[0]
            if peers >= 1 and now >= TAKING_MOST * peers:
                over.append((now / peers, rank, now, peers))
        if len({rank for _, rank, _, _ in over}) != 1:
            return None
        fold, rank, now, peers = max(over)
        return (rank, ends[rank], now, peers) if fold >= ORDERS_OVER else None

    def ends_unsaid(self) -> dict[int, Observation] | None:
        """Each rank's last line, for the ranks that printed any, when none of them says it finished or is
        an error or warning record: output that stops without a word of how it ended. None otherwise."""
        ends = {rank: lines[-1] for rank in sorted(self._recent) if (lines := self._with_progress(rank))}
        if not ends or self._a_rank_finished() or any(_a_record(end) for end in ends.values()):
            return None
        return ends

    def _a_rank_finished(self) -> bool:
        """Whether a rank's last line says it finished (`training finished`, `preload done`)."""
        return any(
            ENDS_NORMALLY.search(lines[-1].text) for lines in map(self._with_progress, self._recent) if lines
        )

    def lone_memory_climb(self) -> tuple[int, Observation, float, float] | None:
        """The one rank whose memory reading climbed (see memory_climb) while no peer's did, with its
        last such line and the sizes it climbed from and to; None when no rank, or more than one, climbed,
        or when a rank's last line says it finished."""
        if self._a_rank_finished():
            return None
        climbs = [(rank, climb) for rank in self._recent if (climb := self.memory_climb(rank)) is not None]
        if len(climbs) != 1:
            return None
        rank, (line, before, now) = climbs[0]
        return rank, line, before, now

    def outsized_last_reading(self) -> tuple[int, Observation, float, float, str] | None:
        """The one rank whose last line (or one from the last line its peers printed too on) reads an
        outsized amount over the largest its peers read in lines of the same shape: a size OUTSIZED-fold and
        MEMORY_CLIMB_TO more (`host cache 51.5 GiB` where the others reached `15.5 GiB`), or a count of
        items COUNT_OUTSIZED-fold and at least COUNT_OUTSIZED_FROM (`118355032 indices` where they read
        `1204113`), with that line, the peers' largest, its own amount and the unit (`B` for bytes): what
        it was taking on when its output stopped. None unless exactly one rank is so, or when a rank's last
        line says it finished."""
        if self._a_rank_finished():
            return None
        said = {rank: self._with_progress(rank) for rank in self._recent}
        largest = self._largest_two()
        printers = Counter(
            shape for lines in said.values() for shape in {self.alike(line.text) for line in lines}
        )
        outsized = []
        for rank, lines in said.items():
            # From its last line a peer printed alike too on: where it went on alone after the point its
            # peers reached (its last line alone, when that is one they printed).
            at = next(
                (i for i in range(len(lines) - 1, -1, -1) if printers[self.alike(lines[i].text)] > 1), -1
            )
            for line in reversed(lines[at:]):
                if _a_record(line):
                    continue
                shape = self._reading_shape(line.text)
                found = [
                    (peers, now, unit)
                    for unit, now in _readings(line.text).items()
                    if (peers := _peers_largest(largest, (shape, unit), rank)) is not None
                    and _outsized(unit, now, peers)
                ]
                if found:
                    outsized.append((rank, line, *found[0]))
                    break
        return outsized[0] if len(outsized) == 1 else None

    def _largest_two(self) -> dict[tuple[str, str], list[tuple[float, int]]]:
        """By line shape and unit, over the ranks' healthy last lines, the two ranks that read the largest
        amounts, largest first, with those amounts: each rank's peers' largest is the first not its own
        (see _peers_largest), so no rank's lines are set beside every peer's one by one."""
        top: dict[tuple[str, str], list[tuple[float, int]]] = {}
        for rank in self._recent:
            read: dict[tuple[str, str], float] = {}
            for line in self._with_progress(rank):
                if not _a_record(line):
                    shape = self._reading_shape(line.text)
                    for unit, amount in _readings(line.text).items():
                        read[shape, unit] = max(read.get((shape, unit), 0.0), amount)
            for key, amount in read.items():
                best = top.setdefault(key, [])
                best.append((amount, rank))
                best.sort(reverse=True)
                del best[2:]
        return top

    def standout_reading(
        self, among: Iterable[int], fold: float | None = None
    ) -> tuple[int, Observation, float, float, str] | None:
        """The one rank of `among` whose reading stands `fold` times (by default STANDS_OUT) over the largest
        every other rank read in lines of the same shape (`host=222MB` where its peers reached `host=68MB`),
        whatever its size: with its latest such line, its amount, the peers' largest and the unit (`B` for
        bytes). A weaker sign than an outsized last reading, for choosing among ranks one of which is known
        to have gone."""
        largest = self._largest_two()
        standing: dict[int, tuple[Observation, float, float, str]] = {}
        for rank in among:
            for line in self._with_progress(rank):
                if _a_record(line):
                    continue
                shape = self._reading_shape(line.text)
                for unit, now in _readings(line.text).items():
                    peers = _peers_largest(largest, (shape, unit), rank) or 0.0
                    if peers > 0 and now >= (fold or STANDS_OUT) * peers:
                        standing[rank] = (line, now, peers, unit)
        if len(standing) != 1:
            return None
        ((rank, (line, now, most, unit)),) = standing.items()
        return rank, line, now, most, unit

    def stopped_short(self) -> tuple[int, Observation] | None:
        """The one rank whose output stops at a line every rank printed (alike: see alike) while every other
        rank printed more after theirs (`site_id vocab size 19486` where its peer went on to `wide features
        (20000, 1001)`, `preloading 1600 latents` where they went on to `preload done`), with that last
        line: it stopped first. None when its own last line says it finished or is a record, when another
        rank is not known to have gone past that line, or when the one peer that did only went on to say it
        finished (a line one rank alone prints: `if rank == 0: print("training finished")`). A peer that
        printed fewer rounds of a loop's line is past it when its count says the loop was done (`read rows
        1200/1200` where the rank stops at `read rows 4096/76800`). A run of a loop's lines kept as its first
        counts as the rounds it stands for (`day 30: cube 174 MB`, the rank's second round, where its peers
        printed four and went on to `cube ready`)."""
        ranks = sorted(self._recent)
        if len(ranks) < 2 or (self.world_size is not None and len(ranks) < self.world_size):
            return None
        said = {rank: self._with_progress(rank) for rank in ranks}
        shapes = {rank: [self.alike(line.text) for line in lines] for rank, lines in said.items()}
        short = []
        for rank, lines in said.items():
            last = lines[-1] if lines else None
            if last is None or _a_record(last) or ENDS_NORMALLY.search(last.text):
                continue  # its own last line says it finished: its peers only printed more after theirs
            shape = shapes[rank][-1]
            rounds = sum(_rounds_of(said[rank], shapes[rank], shape))
            # Each peer's lines after as many rounds of that line as the rank printed (a loop's line: `step 1
            # ...: building` is not past a peer's `step 0 ...: building`), when it printed that many; the
            # first peer not past it settles that the rank did not stop first (one pass over the peers at
            # most, so the ranks' lines are read once each).
            after = []
            for peer, theirs in said.items():
                if peer == rank:
                    continue
                at = [i for i, theirs_shape in enumerate(shapes[peer]) if theirs_shape == shape]
                through = list(accumulate(_rounds_of(theirs, shapes[peer], shape)))
                if at and through[-1] >= rounds:
                    reached = next(i for i, total in enumerate(through) if total >= rounds)
                    went_on = theirs[at[reached] + 1 :]
                    if through[reached] > rounds:
                        # more rounds of a run kept as one line: past it only once it went on to another line
                        went_on = [
                            line
                            for line, theirs_shape in zip(
                                went_on, shapes[peer][at[reached] + 1 :], strict=True
                            )
                            if theirs_shape != shape
                        ]
                elif at and _loop_done(theirs[at[-1]].text, last.text):
                    went_on = theirs[at[-1] + 1 :]  # in fewer rounds, it got through the whole loop
                else:
                    break
                if not went_on:
                    break
                after.append(went_on)
            else:
                if len(after) == 1 and any(ENDS_NORMALLY.search(line.text) for line in after[0]):
                    continue
                short.append((rank, last))
        return short[0] if len(short) == 1 else None

    def large_last_reading(self, rank: int) -> tuple[Observation, float] | None:
        """The rank's last line when it reads a size of LARGE_ALLOCATION or more, OUTSIZED-fold over any
        size its peers ever read (`consolidating fp32 master weights (32.2 GiB host buffer)` where
        they read none): an allocation of its own it was making when its output stopped, with that size."""
        lines = self._with_progress(rank)
        if not lines or _a_record(lines[-1]) or ENDS_NORMALLY.search(lines[-1].text):
            return None
        now = max(_sizes(lines[-1].text), default=0.0)
        if now < LARGE_ALLOCATION:
            return None
        if self._largest_sizes is None:
            # Each rank's largest size read, the two largest kept: a rank's peers read at most the larger
            # of them that is not its own (one pass over every rank, not one per rank).
            largest = (
                (
                    max(
                        (size for line in self._with_progress(peer) for size in _sizes(line.text)),
                        default=0.0,
                    ),
                    peer,
                )
                for peer in self._recent
            )
            self._largest_sizes = sorted(largest, reverse=True)[:2]
        peers = next((size for size, peer in self._largest_sizes if peer != rank), 0.0)
        return (lines[-1], now) if now >= OUTSIZED * peers else None

    def lone_large_reading(self) -> tuple[int, Observation, float] | None:
        """The one rank whose last line reads a large allocation (see large_last_reading), with that line
        and its size; None when no rank, or more than one, does, or when a rank's last line says it
        finished (a healthy run's files, as far as they tell)."""
        if self._a_rank_finished():
            return None
        large = [(rank, found) for rank in sorted(self.ranks) if (found := self.large_last_reading(rank))]
        if len(large) != 1:
            return None
        rank, (line, now) = large[0]
        return rank, line, now

    def exit_message(self, rank: int) -> RecentLineObs | None:
        """The rank's last line in a file (its own file in torchrun's `--log-dir`, or behind torchrun's
        `--tee` label) when it alone lacks the label the script puts on its records while the rank's
        other lines there all carry it: not a record of the script's logging but what Python wrote as the
        process ended (`sys.exit('shard 0 is 3:00:00 behind labels')` prints its message bare to stderr)."""
        own = self._recent.get(rank, [])
        for index in sorted({line.file_index for line in own}, reverse=True):
            lines = sorted((line for line in own if line.file_index == index), key=lambda line: line.line)
            if _bare_after_records(lines[-1], lines[:-1]):
                return lines[-1]
        return None

    def console_exit_message(self, rank: int, report: Observation) -> RecentLineObs | None:
        """In a console every rank's lines share, the first line without a rank label after the rank's
        last labelled one and before the report of its exit: what Python wrote as it ended (see
        exit_message), when no other unlabelled line there has its shape."""
        own = [line for line in self._recent.get(rank, []) if line.file_index == report.file_index]
        if not own:
            return None
        after = [
            line
            for line in self.unlabelled
            if line.file_index == report.file_index and own[-1].line < line.line < report.line
        ]
        if not after or sum(numberless(line.text) == numberless(after[0].text) for line in after) > 1:
            return None
        return after[0] if _bare_after_records(after[0], own) else None

    def own_lines(self, rank: int) -> list[RecentLineObs]:
        """The rank's last lines that no other rank printed (numbers aside): what it did that they did
        not (`step 2: non-finite loss, skipping batch`). None are known when no peer's lines are."""
        if len(self._recent) < 2:
            return []
        own = self._recent.get(rank, [])
        theirs = {shape for other, shapes in self._shapes.items() if other != rank for shape in shapes}
        return [
            line
            for line, shape in zip(own, self._shapes.get(rank, []), strict=True)
            if self._printers[shape] == 1 and not _run_together(shape, theirs)
        ]

    def all_failures(self) -> list[Observation]:
        """Failures and exit reports together, in input order."""
        return sorted([*self.failures, *self.exits], key=lambda o: (o.file_index, o.line, o.seq))


def _run_together(shape: str, theirs: set[str]) -> bool:
    """Whether a line is two prints run together on one line of a shared console (`step 1 loss 0.77rank 0
    step 1 loss 0.83`): it starts with a line another rank printed and goes on with no break after it (a
    line of 8 characters or more: a short one, `done`, starts many lines)."""
    return any(
        8 <= len(other) < len(shape) and shape.startswith(other) and shape[len(other)].isalnum()
        for other in theirs
    )


def _not_before_earlier_lines(observations: list[Any], values: list[float]) -> list[float]:
    """The readings of one input's observations, a carried one (see Observation) raised to the latest
    reading of the observations printed before it."""
    raised = list(values)
    latest = -math.inf
    for index in sorted(range(len(observations)), key=lambda i: (observations[i].line, observations[i].seq)):
        if observations[index].stamp_carried:
            raised[index] = max(raised[index], latest)
        latest = max(latest, raised[index])
    return raised


def order(observations: list[Any], tier: Any = None) -> list[Any]:
    """Observations earliest first: by clock when every reading compares, else by place in the inputs.

    In one input, a reading carried over from an earlier line says only when its observation was printed
    at the earliest (a traceback after its rank's last stamped line): it is read as no earlier than the
    observations before it in the input.

    `tier` (a function of an observation) breaks ties and, when no order in time is known across
    inputs, ranks observations before their place in the inputs does.
    """
    if not observations:
        return []
    rank_of = tier or (lambda _o: 0)
    stamps = [o.stamp for o in observations]
    one_input = len({o.file_index for o in observations}) == 1
    if all(s is not None for s in stamps):
        values = comparable(stamps)
        if values is not None:
            if one_input:
                values = _not_before_earlier_lines(observations, values)
            keyed = sorted(
                zip(values, range(len(observations)), observations, strict=True),
                key=lambda t: (t[0], rank_of(t[2]), t[2].file_index, t[2].line, t[2].seq),
            )
            return [o for _v, _i, o in keyed]
    if one_input:
        return sorted(observations, key=lambda o: (o.line, rank_of(o), o.seq))
    # Files of torchrun's `--log-dir` say which attempt they are of: an earlier attempt came first.
    return sorted(
        observations,
        key=lambda o: (
            path_attempt(o.file) or 0,
            rank_of(o),
            math.inf if o.stamp is None else 0,
            o.file_index,
            o.line,
            o.seq,
        ),
    )


# --- merging ------------------------------------------------------------------------------------


def _merge_exits(exits: list[ExitObs]) -> list[ExitObs]:
    """One report per process: the agent line, the table entry and the signal line of one pid. Where
    torchrun reports its workers, Slurm's tasks are torchrun's agents (one a node): srun's `task 1: Exited
    with exit code 1` is an agent ending because its worker failed, not rank 1, and is kept as evidence of
    the worker's exit with that code."""
    workers = [obs for obs in exits if obs.reporter.startswith("torchrun")]
    if workers:
        for agent in (obs for obs in exits if obs.reporter == "srun"):
            worker = next((obs for obs in workers if obs.code == agent.code), workers[0])
            worker.evidence.append((agent.file, agent.line, agent.text))
        exits = [obs for obs in exits if obs.reporter != "srun"]
    kept: list[ExitObs] = []
    for obs in sorted(exits, key=lambda o: (o.file_index, o.line, o.seq)):
        twin = next((k for k in kept if _same_exit(k, obs)), None)
        if twin is None:
            kept.append(obs)
            continue
        if twin.local_rank and obs.rank is not None and not obs.local_rank:
            twin.rank, twin.local_rank, twin.rank_source = obs.rank, False, obs.rank_source
        if twin.rank is None:
            twin.rank, twin.local_rank, twin.rank_source = obs.rank, obs.local_rank, obs.rank_source
        twin.table_root = twin.table_root or obs.table_root
        twin.error_file = twin.error_file or obs.error_file
        if twin.stamp is None:
            twin.stamp, twin.stamp_carried = obs.stamp, obs.stamp_carried
        if obs.reporter == "torchrun-agent" and twin.reporter != "torchrun-agent":
            # The agent's `failed (exitcode: N) local_rank: R` line names the rank and the code: state it.
            twin.evidence.insert(0, (twin.file, twin.line, twin.text))
            twin.file, twin.file_index, twin.line, twin.text = obs.file, obs.file_index, obs.line, obs.text
        if obs.reporter == "torchrun-table" and twin.reporter != "torchrun-table":
            twin.reporter = "torchrun-table"
        twin.evidence += [e for e in obs.evidence if e not in twin.evidence][:10]
        twin.chain = twin.chain or obs.chain
        twin.count += obs.count
    return kept


def _same_exit(a: ExitObs, b: ExitObs) -> bool:
    if a.pid is not None and b.pid is not None:
        return a.pid == b.pid
    if a.code != b.code:
        return False
    if a.rank is None or b.rank is None:
        return a.file_index == b.file_index and (a.pid is None or b.pid is None) and a.rank == b.rank
    return a.rank == b.rank and a.local_rank == b.local_rank


def _same_failure(a: Observation, b: Observation) -> bool:
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        return False
    ka, kb = a.known(), b.known()
    if (ka.id if ka else None) != (kb.id if kb else None):
        return False
    if ka is not None and ka.kind == "root" and a.rank is not None and a.rank == b.rank:
        return True  # one rank, one kind of root failure: the log line and its traceback
    return a.innermost_text()[:300] == b.innermost_text()[:300]


def _absorb(keep: Observation, other: Observation) -> None:
    if len(other.chain) > len(keep.chain) and other.primary() is not None:
        keep.chain = other.chain
    if keep.rank is None or (keep.local_rank and not other.local_rank and other.rank is not None):
        keep.rank, keep.local_rank = other.rank, other.local_rank
        keep.rank_source, keep.rank_note = other.rank_source, other.rank_note or keep.rank_note
    if keep.stamp is None:
        keep.stamp, keep.stamp_carried = other.stamp, other.stamp_carried
    if isinstance(keep, ExceptionObs) and isinstance(other, ExceptionObs):
        keep.adopt_frames(other)
        keep.worker_frames = keep.worker_frames or other.worker_frames
        keep.exc_type = keep.exc_type or other.exc_type
    if isinstance(keep, CollectiveObs) and isinstance(other, CollectiveObs):
        # A report repeated with a longer list (Horovod's stall warning, every minute): the ranks of both.
        room = MAX_NAMED - len(keep.named_ranks)
        keep.named_ranks += [r for r in other.named_ranks if r not in keep.named_ranks][:room]
        keep.named_ops = {**other.named_ops, **keep.named_ops}
    keep.evidence += [e for e in other.evidence if e not in keep.evidence][:10]
    keep.notes += [n for n in other.notes if n not in keep.notes]
    keep.count += other.count


def _keys(obs: Observation) -> list[tuple[Any, ...]]:
    known = obs.known()
    kid = known.id if known else None
    keys: list[tuple[Any, ...]] = [("text", kid, obs.innermost_text()[:300])]
    if known is not None and known.kind == "root" and obs.rank is not None:
        keys.append(("rank", kid, obs.rank))
    return keys


_COPIES = ("table", "error-file")


def _merge_failures(observations: list[Observation]) -> list[Observation]:
    """Fold repeated sightings of one failure (log line, failure table, error file, Burn wrapper) into one."""
    ordered = sorted(observations, key=lambda o: (o.file_index, o.line, o.seq))
    kept: list[Observation] = []
    index: dict[tuple[Any, ...], list[int]] = {}
    panics: list[ExceptionObs] = []
    for obs in ordered:
        if _fold_burn_wrapper(obs, panics):
            continue
        slots = sorted({slot for key in _keys(obs) for slot in index.get(key, ())})
        twin_slot = next(
            (s for s in slots if kept[s].warning == obs.warning and _same_failure(kept[s], obs)), None
        )
        if twin_slot is not None:
            twin = kept[twin_slot]
            if _is_copy(twin) and not _is_copy(obs):
                kept[twin_slot] = obs
                _absorb(obs, twin)
                for key in _keys(obs):
                    index.setdefault(key, []).append(twin_slot)
            else:
                _absorb(twin, obs)
                if _raised_for(obs, twin):
                    twin.raised = obs
            continue
        for key in _keys(obs):
            index.setdefault(key, []).append(len(kept))
        kept.append(obs)
        if isinstance(obs, ExceptionObs) and obs.origin == "panic":
            panics.append(obs)
    return kept


def _raised_for(obs: Observation, record: Observation) -> bool:
    """Whether `obs`, a twin of the logged `record` (one failure: see _same_failure), is the exception
    line the same rank then raised for it (gloo's `[E ProcessGroupGloo.cpp:67] [Rank 0]: Rank 1 failed to
    pass monitoredBarrier`, then the traceback's `RuntimeError: [Rank 0]: Rank 1 failed ...`)."""
    return (
        isinstance(obs, ExceptionObs)
        and obs.exc_type is not None
        and not (isinstance(record, ExceptionObs) and record.exc_type is not None)
        and obs.rank == record.rank
        and not _is_copy(obs)
    )


def _is_copy(obs: Observation) -> bool:
    """A copy of a failure (torchrun's table, an error file, a user's sentence quoting it) rather
    than the log's own report of it: a twin of the log's own gives way to it."""
    return obs.quoted or _origin(obs) in _COPIES


def _origin(obs: Observation) -> str:
    return obs.origin if isinstance(obs, ExceptionObs) else "line"


def _fold_burn_wrapper(obs: Observation, panics: list[ExceptionObs]) -> bool:
    """A Burn DDP wrapper re-raises a worker's panic: give the worker's panic the wrapper's rank and chain."""
    for i, link in enumerate(obs.chain[:-1]):
        if link.entry is None or link.entry.kind != "wrapper":
            continue
        inner = obs.chain[i + 1].text.strip()
        for earlier in panics:
            text = earlier.text.strip()
            if (
                earlier.file_index == obs.file_index
                and text
                and (text == inner or inner.startswith(text))
                and earlier.rank in (None, obs.rank)
            ):
                earlier.chain = obs.chain[: i + 1] + earlier.chain
                earlier.rank, earlier.rank_source, earlier.rank_note = (
                    obs.rank,
                    obs.rank_source,
                    obs.rank_note,
                )
                earlier.evidence += obs.evidence
                earlier.notes += [n for n in obs.notes if n not in earlier.notes]
                return True
    return False


MEMORY_CLIMB = 1.5  # a size read out that grew this many times over ...
MEMORY_CLIMB_TO = float(GIB) / 2  # ... to at least this much is memory climbing
OUTSIZED = 2.0  # a rank's size reading this many times its peers' largest in the same line is outsized
STANDS_OUT = 1.5  # ... and this many times, among ranks one of which is known to have gone, stands out
LARGE_ALLOCATION = 8.0 * GIB  # a size one rank alone reads, this large, is an allocation that may not fit
COUNT_OUTSIZED = 10.0  # a count of items this many times its peers' largest in the same line ...
COUNT_OUTSIZED_FROM = 1_000_000  # ... and at least this many items is an outsized workload
TAKING_MOST = 4.0  # a reading this many times every peer's, when all stopped together, is not chance
ORDERS_OVER = 100.0  # ... nor is any number of the line they stopped at this many times every peer's
# A number standing alone in a line, or with a short unit (`depth=38400`, `7200.0s`), not part of a name
# (`L318`, `chr1:121705000`).
_PLAIN_NUMBER = re.compile(r"(?<![\w.:/-])(\d{1,15}(?:\.\d{1,9})?)(?![\d.]|[A-Za-z_]{4}|\w*\d)")
# A number written with thousands separators (`2,621,442`): one number.
_GROUPED_NUMBER = re.compile(r"(?<![\d,])\d{1,3}(?:,\d{3})+(?![\d,])")
# What a count counts: a plural noun, one word before it at most (`indices`, `candidate cells`, `cloud-free
# passes`; not `rss` or `loss`).
_COUNTED = r"(?:[a-z]{2,20}(?:-[a-z]{2,20})? )?[a-z]{1,19}(?<!s)s\b"
# A count of items a line reads out: a number and what it counts (`118355032 indices`, `2,000,000 rows`,
# `230,400 candidate cells`).
_ITEM_COUNT = re.compile(r"(?<![\w.,=])(\d{1,3}(?:,\d{3})+|\d{1,15})(?![\d.,]\d) (" + _COUNTED + ")")
# ... or a setting that counts items (`rows=1400000`, `samples: 2000000`, `conductor_points=23000`).
_ITEMS_SETTING = re.compile(r"\b(?:[a-z]{1,20}_){0,3}([a-z]{2,19}(?<!s)s)(?:=|: )(\d{1,15})(?![\d.,]\d)")
# ... or a shape, whose elements it holds (`building co-occurrence 24146x24146`, `latents 4x128x128`,
# `41 x 20500 x 31000`, `2,621,442 x 2,621,442`).
_SIZE = r"(?:\d{1,3}(?:,\d{3}){1,3}|\d{1,9})"  # one size of a shape, thousands separated or not
_SHAPE = re.compile(rf"(?<![\w.,])({_SIZE}(?: ?x ?{_SIZE}){{1,4}})(?![\w.]|,\d)")
# ... written as Python prints one, a tuple of two to five sizes (`occupancy grid (24, 60, 80, 10080)`).
_TUPLE_SHAPE = re.compile(r"(?<![\w.])\((\d{1,7}(?:, ?\d{1,7}){1,4})\)")


def _peers_largest(
    top: dict[tuple[str, str], list[tuple[float, int]]], key: tuple[str, str], rank: int
) -> float | None:
    """The largest amount a peer of the rank read in lines of that shape and unit (see
    Timeline._largest_two), or None when no peer read one."""
    return next((amount for amount, reader in top.get(key, ()) if reader != rank), None)


def _counter(line: Observation, unit: str) -> int:
    """The highest count of the unit a line states (`epoch 3` -> 3)."""
    return max(int(m.group(2)) for m in PROGRESS_COUNTER.finditer(line.text) if m.group(1).lower() == unit)


def _a_record(line: Observation) -> bool:
    """An error or warning record among a rank's last lines: a report, not what the rank did."""
    return isinstance(line, RecentLineObs) and (line.error_record or line.warning_record)


def _readings(text: str) -> dict[str, float]:
    """The largest amount a line reads out in each unit: bytes (`B`), counts of items by noun, and the
    elements of a shape (`24146x24146`, `(24, 60, 80, 10080)`)."""
    found: dict[str, float] = {}
    for unit, amount in (
        [("B", size) for size in _sizes(text)]
        + [(m[2], float(m[1].replace(",", ""))) for m in _ITEM_COUNT.finditer(text)]
        + [(m[1], float(m[2])) for m in _ITEMS_SETTING.finditer(text)]
        + [("elements", float(_shape_elements(m))) for m in _SHAPE.finditer(text)]
        + [("elements", float(math.prod(map(int, m[1].split(","))))) for m in _TUPLE_SHAPE.finditer(text)]
    ):
        found[unit] = max(found.get(unit, 0.0), amount)
    return found


def _outsized(unit: str, amount: float, peers: float) -> bool:
    """Whether a rank's amount is outsized beside the largest its peers read in the same line."""
    if unit == "B":
        return amount >= OUTSIZED * peers and amount - peers >= MEMORY_CLIMB_TO
    return amount >= COUNT_OUTSIZED * peers and amount >= COUNT_OUTSIZED_FROM


def _sizes(text: str) -> list[float]:
    """The sizes a line reads out, in bytes, in order."""
    return [
        size
        for m in SIZE_READING.finditer(text)
        if (size := parse_size(f"{m[1].replace(',', '')} {m[2]}")) is not None
    ]


# A list of two or more numbers (`[520, 279, 109, 60]`, `[0.263, 8.054]`) or quoted names (`['bass', 'drums']`).
_VALUE_LIST = re.compile(
    r"\[ ?(?:-?\d[\d.e+-]{0,24}(?:, ?-?\d[\d.e+-]{0,24}){1,4095}|'[^',\]]{0,80}'(?:, ?'[^',\]]{0,80}'){1,4095}) ?\]"
)
_NAME = re.compile(r"'([^',\]]{0,80})'")  # a quoted name in such a list
_LIST_NAME = re.compile(r"[A-Za-z_][\w. ]{0,40}[=:]? ?$")
_LIST_NAME_CHARS = 48
# A count of things, their name one or two words (`7 length bins`, `4 classes`, `15 cloud-free passes`).
_THINGS_COUNT = re.compile(r"(?<![\w.,=])(\d{1,9}) " + _COUNTED)
# The key of a `key=value` setting in a list of them (`time_mask=0.5, gain=0.3`).
_SETTING_KEY = re.compile(r"\b([A-Za-z_][\w.-]{0,40})=(?=\S)")


_WORDS = re.compile(r"[A-Za-z]{3,}\W+[A-Za-z]{2,}")


def _bare_after_records(line: RecentLineObs, before: list[RecentLineObs]) -> bool:
    """Whether a line without a rank label, of words, comes after lines that each carry one (the
    script's own records; a run of lines alike but for their numbers is kept as its first): a message
    written apart from its logging, not a progress bar's or a warning's line, nor a line the rank printed
    again and again (`step 4 mosaic tiles 24 (1152 MB)`, a print of its loop)."""
    return (
        not line.labelled
        and line.count == 1
        and bool(before)
        and all(other.labelled for other in before)
        and not line.warning_record
        and _WORDS.search(line.text) is not None
        and "|" not in line.text
    )


def _list_name(before: str) -> str:
    """The words that name a list, right before it (`grade counts=`), numbers aside; empty when none do."""
    name = _LIST_NAME.search(before[-_LIST_NAME_CHARS:])
    return numberless(name.group()) if name else ""


def last_run(lines: Sequence[RecentLineObs]) -> Sequence[RecentLineObs]:
    """The lines alike, numbers aside, that a list of lines ends with (the rounds of a loop: `not in yet,
    retrying in 5s` again and again); empty for no lines."""
    if not lines:
        return lines
    shape = numberless(lines[-1].text)
    first = len(lines) - 1
    while first > 0 and numberless(lines[first - 1].text) == shape:
        first -= 1
    return lines[first:]


def _listed_names(text: str) -> list[str]:
    """The quoted names a line's lists give, in order (`['petrol', 'diesel']`); none for lists of numbers."""
    return [
        name
        for m in _VALUE_LIST.finditer(text)
        if m.group()[1:].lstrip()[:1] == "'"
        for name in _NAME.findall(m.group())
    ]


def _list_lengths(text: str) -> tuple[int, ...]:
    """The number of items of each list of values a line prints, in order."""
    return tuple(m.group().count(",") + 1 for m in _VALUE_LIST.finditer(text))


def _only(odd: dict[int, RecentLineObs]) -> tuple[int, RecentLineObs] | None:
    """The one rank found odd, with its line; None when none or several are."""
    return next(iter(odd.items())) if len(odd) == 1 else None


def _lone(stated: dict[int, tuple[RecentLineObs, Any]], part: Callable[[Any], Any]) -> int | None:
    """The one rank whose part of what its line states differs from all its peers', who agree."""
    seen = Counter(part(value) for _, value in stated.values())
    if len(seen) != 2 or min(seen.values()) != 1:
        return None
    rare = min(seen, key=seen.__getitem__)
    return next(rank for rank, (_, value) in stated.items() if part(value) == rare)


def _tensor_dtype(text: str) -> str:
    """The dtype of the tensor a line prints: the one its repr names, else the default its elements are
    printed as (`2.0000` a float's, `2` an integer's, `True` a bool's), else `default`."""
    if named := _TENSOR_DTYPE.search(text):
        return named.group(1)
    elements = _TENSOR_ELEMENTS.search(text)
    body = elements.group(1) if elements else ""
    if _FLOAT_ELEMENT.search(body):
        return "float32"
    if _BOOL_ELEMENT.search(body):
        return "bool"
    return "int64" if any(c.isdigit() for c in body) else "default"


def _word_settings(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A line's settings in words (SETTING), keyed by their keys (`bands=R,G,B` -> (`bands`,), (`R,G,B`,))."""
    settings = [(text[m.start() : m.start(1)].rstrip("=: '\""), m.group(1)) for m in SETTING.finditer(text)]
    if not settings:
        return None
    return tuple(numberless(key) for key, _ in settings), tuple(value for _, value in settings)


def _counts_of_things(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A line's counts of things keyed by what they count, whatever else differs in it (`2630 cadences,
    ... 425 trial periods` -> (`cadences`, `trial periods`), (`2630`, `425`))."""
    counts = list(_THINGS_COUNT.finditer(text))
    if not counts:
        return None
    return tuple(m.group()[len(m.group(1)) + 1 :] for m in counts), tuple(m.group(1) for m in counts)


def _shape_elements(shape: re.Match[str]) -> int:
    """The elements a `_SHAPE` match holds (`41 x 20500 x 31000`, `2,621,442 x 2,621,442`)."""
    return math.prod(map(int, shape[1].replace(" ", "").replace(",", "").split("x")))


def _elements_of_shapes(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A line's shapes keyed by the word after each, with the elements each holds (`binned on 98x98 ft
    grid` -> (`ft`,), (`9604`,))."""
    shapes = list(_SHAPE.finditer(text))
    if not shapes:
        return None
    after = tuple((text[m.end() :].split(maxsplit=1) or [""])[0] for m in shapes)
    return after, tuple(str(_shape_elements(m)) for m in shapes)


def _dtype_sizes(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A line's dtypes keyed by the word before each, with the bytes of an element of each (`96 watches
    (torch.float64)` -> (`watches`,), (`8`,))."""
    dtypes = list(_DTYPE.finditer(text))
    if not dtypes:
        return None
    before = tuple(word.group(1) if (word := _WORD_BEFORE.search(text[: m.start()])) else "" for m in dtypes)
    return before, tuple(str(_DTYPE_BYTES[m.group(1)]) for m in dtypes)


def _in_ratio(ratio: float, receiver: int | None) -> _Pick:
    """A pick (see _lone) of the lone rank whose whole number is `ratio` times its peers' (within a
    percent), or 1/`ratio` times for the `receiver` (see Timeline.sized_in_ratio)."""

    def pick(stated: dict[int, tuple[RecentLineObs, Any]], part: Callable[[Any], Any]) -> int | None:
        rank = _lone(stated, part)
        if rank is None:
            return None
        mine = part(stated[rank][1])
        theirs = next(part(value) for peer, (_, value) in stated.items() if peer != rank)
        if not (mine.isdigit() and theirs.isdigit() and int(theirs)):
            return None
        expected = 1 / ratio if rank == receiver else ratio
        return rank if abs(int(mine) / int(theirs) - expected) <= 0.01 * expected else None

    return pick


def _outlier(stated: dict[int, tuple[RecentLineObs, Any]], part: Callable[[Any], Any]) -> int | None:
    """The one rank whose count (`1,400`) is OUTSIZED-fold over every peer's, which count something."""
    counts = {rank: float(part(value).replace(",", "")) for rank, (_, value) in stated.items()}
    top = max(counts, key=counts.__getitem__)
    rest = max(count for rank, count in counts.items() if rank != top)
    return top if rest > 0 and counts[top] >= OUTSIZED * rest else None


# A setting's value, whole (`slice=last_24h+backfill_2019`).
_SET_VALUE = re.compile(r"(?<=\w)=[^\s,;=]+")
# A word or a name (`Seaquest`, `orchard_block_2`, `Pipes-F`, `2025-05_north`: one with a letter in it),
# whole: a token a line may name a rank's own thing by.
_TOKEN = re.compile(r"(?<![\w-])(?=[\w-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*")


# What alike reads as a value: a word or name (see _TOKEN) not every rank says, whole with a decimal tail
# (`NaCl_0.5M`: not a name and a number `5`), or a number (`0.10.14`).
_VALUE_PIECE = re.compile(rf"{_TOKEN.pattern}(?:\.\d\w*)*|\d+(?:\.\d+)*")
# The dtype a tensor's repr names (`tensor([1.5, 2.0], dtype=torch.float64)`).
_TENSOR_DTYPE = re.compile(r", ?dtype=torch\.(\w+)")
# A dtype a line names (`torch.float64`, `dtype=float32`, `bfloat16`), and the bytes of one element of it.
_DTYPE_BYTES = {
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2, "int8": 1,
    "uint8": 1, "complex64": 8, "complex128": 16,
}  # fmt: skip
_DTYPE = re.compile(r"(?<![\w])(?:(?:torch|np|numpy)\.)?(" + "|".join(_DTYPE_BYTES) + r")(?!\w)")
_WORD_BEFORE = re.compile(r"([A-Za-z_][\w-]{0,40})\W{0,8}$")
# The elements of a tensor's repr (`tensor([2, 3, 3, 2])`), and how a float's or a bool's are printed.
_TENSOR_ELEMENTS = re.compile(r"tensor\(\[+([^\]]{0,2000})")
_FLOAT_ELEMENT = re.compile(r"\d\.|\d[eE]|\b(?:nan|inf)\b")
_BOOL_ELEMENT = re.compile(r"\b(?:True|False)\b")
# Names in a list with commas and no spaces (`ztfg,ztfr,ztfi`, `mel,f0,energy`).
_NAME_LIST = re.compile(r"(?<![\w,.-])[A-Za-z_][\w.-]{0,40}(?:,[A-Za-z_][\w.-]{0,40}){1,31}(?![\w,])")
# A date, a time of day or a duration (`2026-12-02`, `04:56:40,004`, `elapsed=1.6s`, `12 ms`).
_BY_CHANCE = re.compile(
    r"\d{4}-\d\d-\d\d|\d{1,2}:\d\d(?::\d\d)?(?:[.,]\d+)?|\d+(?:\.\d+)? ?(?:ms|s|sec|secs|seconds|min|h)\b"
)


# A count of the way through a loop (`read rows 4096/76800`), not a rank's label (`rank 1/4`).
_THROUGH = re.compile(r"(?<![\w/.])(?<!rank )(?<!rank=)(\d{1,12})/(\d{1,12})(?![\w/.])", re.I)


def _rounds_of(lines: list[Observation], shapes: list[str], shape: str) -> list[int]:
    """How many lines each of a rank's lines of that shape stands for, in order: a run of lines that differ
    only in their numbers is kept as its first with its count, and its last, kept again as the rank's last
    healthy line right after it, is already counted."""
    return [
        line.count
        if isinstance(line, RecentLineObs)
        else (0 if i > 0 and shapes[i - 1] == shape else 1)  # the last healthy line, after its own run
        for i, line in enumerate(lines)
        if shapes[i] == shape
    ]


def _loop_done(peer: str, own: str) -> bool:
    """Whether a loop's line says the peer got through the loop (`1200/1200`) where the rank's own says it
    had not (`4096/76800`), count for count."""
    return any(
        int(a.group(1)) == int(a.group(2)) > 0 and int(b.group(1)) < int(b.group(2))
        for a, b in zip(_THROUGH.finditer(peer), _THROUGH.finditer(own), strict=False)
    )


def _shared_words(recent: dict[int, list[RecentLineObs]]) -> frozenset[str] | None:
    """The words every rank says in its last lines; None when fewer than two ranks are known."""
    if len(recent) < 2:
        return None
    said = [{word for line in lines for word in _TOKEN.findall(line.text)} for lines in recent.values()]
    return frozenset(set.intersection(*said))
