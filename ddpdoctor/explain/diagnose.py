"""Culprit and victims: pick the root cause among the failure events of every rank.

The order of precedence:

1. the earliest *root-kind* failure across ranks (a knowledge-base root entry, or an error the
   knowledge base does not know: a traceback, panic, C++ exception, fatal signal, error file or
   failure-table entry);
2. a rank killed by SIGKILL without any Python error (the host's out-of-memory killer);
3. a rank that exited with an error code and left no text;
4. only timeouts and other symptoms: the earliest symptom, plus the ranks the watchdogs point at;
5. only launcher wrappers (e.g. ChildFailedError alone).

"Earliest" uses timestamps when every candidate has one, log order within one file, and otherwise
puts known root causes before unknown text; an unknown message also gives way to a known root
cause of the same rank. Ranks that died of timeouts, SIGTERM/SIGABRT sent by the launcher or the
watchdog, or a closed peer connection are the root cause's victims.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ddpdoctor.explain import advice
from ddpdoctor.explain.index import IndexEntry, KbIndex
from ddpdoctor.explain.match import INNER_GROUP
from ddpdoctor.explain.model import COLLATERAL_EXIT_CODES, TORCHRUN_ROOT_NOTE, Event, Link

_EXIT_ENTRIES = {
    -9: "torchelastic-signal-sigkill",
    137: "torchelastic-signal-sigkill",
    -6: "torchelastic-signal-sigabrt",
    6: "torchelastic-signal-sigabrt",
    134: "torchelastic-signal-sigabrt",
    -11: "torchelastic-signal-sigsegv",
    139: "torchelastic-signal-sigsegv",
    -15: "torchelastic-signal-sigterm",
    143: "torchelastic-signal-sigterm",
    -1: "torchelastic-sighup",
}
_NO_ERROR_FILE = "torchelastic-no-error-file"
_ERROR_SOURCES = ("traceback", "panic", "cpp", "fatal", "error-file")
_KILL_CODES = (-9, 137)


class Culprit:
    """The root cause: the event, its full chain and what kind of conclusion it is."""

    def __init__(self, event: Event, kind: str, chain: list[Link], entry: IndexEntry | None) -> None:
        self.event = event
        self.kind = kind  # root, unknown, host-kill, exit, symptom, wrapper
        self.chain = chain
        self.entry = entry
        self.category = _category(event, kind, entry)
        self.rank = event.rank
        self.rank_note = event.rank_note
        self.advice: list[str] = []
        self.suspects: list[int] = []


class Diagnosis:
    """The outcome: a culprit (or none), the victims, and every event kept for `--verbose`."""

    def __init__(self) -> None:
        self.culprit: Culprit | None = None
        self.victims: list[tuple[Event, str, IndexEntry | None, str]] = []
        self.events: list[Event] = []
        self.warnings: list[Event] = []


def _category(event: Event, kind: str, entry: IndexEntry | None) -> str:
    if kind == "host-kill":
        return "oom_host"
    if kind != "unknown" and entry is not None:
        return entry.category
    return event.category()


def _exit_entry(event: Event, index: KbIndex) -> IndexEntry | None:
    """The torchelastic entry for a worker's exit code, when torchrun reported it."""
    code = event.exit_code
    if (
        code is None
        or event.source not in ("table", "exit")
        or "exitcode" not in event.text + "".join(t for _, _, t in event.evidence)
    ):
        return None
    has_text = bool(event.chain)
    entry_id = _EXIT_ENTRIES.get(code) or (None if has_text else _NO_ERROR_FILE)
    return index.get(entry_id) if entry_id else None


def _same_failure(a: Event, b: Event) -> bool:
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        return False
    ka, kb = a.known(), b.known()
    if (ka.id if ka else None) != (kb.id if kb else None):
        return False
    if ka is not None and ka.kind == "root" and a.rank is not None and a.rank == b.rank:
        return True  # one rank, one kind of root failure: the log line and its traceback
    return a.innermost_text()[:300] == b.innermost_text()[:300]


def _absorb(keep: Event, other: Event) -> None:
    if len(other.chain) > len(keep.chain) and other.primary() is not None:
        keep.chain = other.chain
    if keep.rank is None or (keep.local_rank and not other.local_rank and other.rank is not None):
        keep.rank, keep.local_rank = other.rank, other.local_rank
        keep.rank_source, keep.rank_note = other.rank_source, other.rank_note or keep.rank_note
    if other.seconds is not None and (keep.seconds is None or other.seconds < keep.seconds):
        keep.seconds = other.seconds
    if keep.exit_code is None:
        keep.exit_code = other.exit_code
    keep.pid = keep.pid if keep.pid is not None else other.pid
    keep.frame = keep.frame or other.frame
    if keep.in_user_code is None:
        keep.in_user_code = other.in_user_code
    keep.evidence += [e for e in other.evidence if e not in keep.evidence][:10]
    keep.notes += [n for n in other.notes if n not in keep.notes]
    keep.count += other.count


def _keys(event: Event) -> list[tuple[Any, ...]]:
    """Index keys under which a twin of this event would be filed (see `_same_failure`)."""
    known = event.known()
    kid = known.id if known else None
    keys: list[tuple[Any, ...]] = [("text", kid, event.innermost_text()[:300])]
    if known is not None and known.kind == "root" and event.rank is not None:
        keys.append(("rank", kid, event.rank))
    return keys


def merge_events(events: list[Event]) -> list[Event]:
    """Fold repeated sightings of one failure (log line, failure table, error file, Burn wrapper) into one event."""
    ordered = sorted(events, key=lambda e: (e.file_index, e.line, e.seq))
    kept: list[Event] = []
    index: dict[tuple[Any, ...], list[int]] = {}
    panics: list[Event] = []
    for event in ordered:
        if _fold_burn_wrapper(event, panics):
            continue
        twin_slot = None
        if event.role != "exit" and not event.warning:
            slots = sorted({slot for key in _keys(event) for slot in index.get(key, ())})
            twin_slot = next(
                (
                    slot
                    for slot in slots
                    if kept[slot].role != "exit"
                    and not kept[slot].warning
                    and _same_failure(kept[slot], event)
                ),
                None,
            )
        if twin_slot is not None:
            twin = kept[twin_slot]
            if twin.source in ("table", "error-file") and event.source not in ("table", "error-file"):
                kept[twin_slot] = event
                _absorb(event, twin)
                for key in _keys(event):
                    index.setdefault(key, []).append(twin_slot)
            else:
                _absorb(twin, event)
            continue
        for key in _keys(event):
            index.setdefault(key, []).append(len(kept))
        kept.append(event)
        if event.source == "panic":
            panics.append(event)
    return kept


def _fold_burn_wrapper(event: Event, panics: list[Event]) -> bool:
    """A Burn DDP wrapper re-raises a worker's panic: give the worker's panic the wrapper's rank and chain."""
    for i, link in enumerate(event.chain[:-1]):
        if link.entry is None or link.entry.kind != "wrapper":
            continue
        inner = event.chain[i + 1].text.strip()
        for earlier in panics:
            if (
                earlier.file_index == event.file_index
                and earlier.text.strip()
                and (earlier.text.strip() == inner or inner.startswith(earlier.text.strip()))
                and earlier.rank in (None, event.rank)
            ):
                earlier.chain = event.chain[: i + 1] + earlier.chain
                earlier.rank, earlier.rank_source, earlier.rank_note = (
                    event.rank,
                    event.rank_source,
                    event.rank_note,
                )
                earlier.evidence += event.evidence
                earlier.notes += [n for n in event.notes if n not in earlier.notes]
                return True
    return False


def _order(
    events: list[Event], tiers: dict[int, int], prefer: Callable[[Event], int] | None = None
) -> list[Event]:
    if not events:
        return []
    if prefer is not None:
        best = min(prefer(e) for e in events)
        events = [e for e in events if prefer(e) == best]
    if all(e.seconds is not None for e in events):
        return sorted(events, key=lambda e: (e.seconds, tiers[id(e)], e.file_index, e.line, e.seq))
    if len({e.file_index for e in events}) == 1:
        return sorted(events, key=lambda e: (e.line, tiers[id(e)], e.seq))
    return sorted(
        events,
        key=lambda e: (
            tiers[id(e)],
            e.seconds if e.seconds is not None else math.inf,
            e.file_index,
            e.line,
            e.seq,
        ),
    )


def _is_collateral(event: Event) -> bool:
    return event.exit_code in COLLATERAL_EXIT_CODES


def diagnose(events: list[Event], index: KbIndex) -> Diagnosis:
    """Pick the culprit and the victims from every event of every input."""
    result = Diagnosis()
    merged = merge_events(events)
    result.warnings = [e for e in merged if e.role == "warning"]
    failures = [e for e in merged if e.role != "warning"]
    result.events = failures
    failing_ranks = {
        e.rank for e in failures if e.rank is not None and e.source in _ERROR_SOURCES and e.role != "exit"
    }
    tiers: dict[int, int] = {}
    roots, unknowns, kills, exits, symptoms, wrappers = [], [], [], [], [], []
    for e in failures:
        role = e.role
        if role == "root":
            roots.append(e)
            tiers[id(e)] = 0
        elif role == "unknown" and e.source in (*_ERROR_SOURCES, "table"):
            unknowns.append(e)
            tiers[id(e)] = 1
        elif (
            e.exit_code in _KILL_CODES
            and e.rank not in failing_ranks
            and role in ("exit", "symptom", "wrapper")
        ):
            kills.append(e)
            tiers[id(e)] = 2
        elif role == "exit" and e.exit_code not in (None, 0) and not _is_collateral(e):
            exits.append(e)
            tiers[id(e)] = 3
        elif role == "symptom" or (role == "exit" and _is_collateral(e)):
            symptoms.append(e)
            tiers[id(e)] = 4
        elif role == "wrapper" or role == "unknown":
            wrappers.append(e)
            tiers[id(e)] = 5

    culprit: Culprit | None = None
    first = _order(roots + unknowns, tiers)
    if first:
        event = _prefer_known(first)
        if event.role == "root":
            culprit = Culprit(event, "root", list(event.chain), event.known())
        else:
            culprit = Culprit(event, "unknown", list(event.chain), _carrier(event))
    elif kills:
        event = _order(kills, tiers)[0]
        entry = _exit_report_entry(event, index)
        culprit = Culprit(event, "host-kill", list(event.chain) or [Link(entry, event.text)], entry)
        culprit.advice += advice.kill_advice(event)
    elif exits:
        event = _order(exits, tiers)[0]
        entry = _exit_report_entry(event, index)
        culprit = Culprit(event, "exit", list(event.chain) or [Link(entry, event.text)], entry)
        culprit.advice += advice.exit_advice(event)
    elif symptoms:
        event = _order(symptoms, tiers, prefer=_symptom_preference)[0]
        entry = event.known() or _exit_entry(event, index)
        culprit = Culprit(event, "symptom", list(event.chain) or [Link(entry, event.text)], entry)
        culprit.rank = _symptom_rank(symptoms, event)
    elif wrappers:
        event = _order(wrappers, tiers)[0]
        culprit = Culprit(event, "wrapper", list(event.chain), event.known())

    if culprit is not None:
        _add_outer_wrappers(culprit, [*wrappers, *exits, *kills])
        _add_advice(culprit, failures)
        if culprit.category == "duplicate_device" and _names_two_ranks(culprit):
            culprit.rank = None
            culprit.rank_note = "several ranks share one device; no single rank is at fault"
        result.culprit = culprit
    result.victims = _victims(culprit, failures, index)
    return result


def _names_two_ranks(culprit: Culprit) -> bool:
    """A duplicate-device message that names two ranks (`rank 2 and rank 0 both on ...`)."""
    texts = [culprit.event.text, *(link.text for link in culprit.chain)]
    return any(advice.DUPLICATE_GPU.search(text) for text in texts)


def _carrier(event: Event) -> IndexEntry | None:
    """For an unknown message: the wrapper entry that carried it as its inner text, if any."""
    if len(event.chain) >= 2 and event.chain[-1].entry is None:
        outer = event.chain[-2]
        if outer.entry is not None and outer.entry.kind == "wrapper" and outer.groups.get(INNER_GROUP):
            return outer.entry
    return None


def _prefer_known(ordered: list[Event]) -> Event:
    """The earliest failure, unless it is unknown text and the knowledge base knows a failure of the same rank."""
    first = ordered[0]
    if first.role == "root":
        return first
    for other in ordered[1:]:
        if other.role == "root" and (other.rank is None or first.rank is None or other.rank == first.rank):
            return other
    return first


def _exit_report_entry(event: Event, index: KbIndex) -> IndexEntry | None:
    """For a launcher's exit report: the launcher message's own entry, else the torchelastic one."""
    for link in event.chain:
        if link.entry is not None:
            return link.entry
    return _exit_entry(event, index)


def _symptom_preference(event: Event) -> int:
    """Among symptoms, the watchdog's report of the collective that timed out says the most."""
    texts = [event.text, *(link.text for link in event.chain)]
    if any("WorkNCCL(" in t for t in texts):
        return 0
    if TORCHRUN_ROOT_NOTE in event.notes:
        return 1
    return 2


def _symptom_rank(symptoms: list[Event], chosen: Event) -> int | None:
    """The rank of a symptom-only failure: torchrun's root cause, the one rank that reported it, else unknown."""
    if TORCHRUN_ROOT_NOTE in chosen.notes:
        return chosen.rank
    ranks = {e.rank for e in symptoms if e.rank is not None}
    return ranks.pop() if len(ranks) == 1 else None


def _add_outer_wrappers(culprit: Culprit, reports: list[Event]) -> None:
    """Launcher wrappers (ChildFailedError, DeepSpeed, Accelerate) go in front of the chain, outermost first."""
    present = {link.entry.id for link in culprit.chain if link.entry is not None}
    outer: list[Link] = []
    for event in sorted(reports, key=lambda e: (e.file_index, e.line, e.seq), reverse=True):
        if event is culprit.event or (event.rank is not None and event.rank != culprit.rank):
            continue
        for link in event.chain:
            if link.entry is not None and link.entry.kind == "wrapper" and link.entry.id not in present:
                present.add(link.entry.id)
                outer.append(link)
    culprit.chain = outer + culprit.chain


def _add_advice(culprit: Culprit, failures: list[Event]) -> None:
    event = culprit.event
    texts = [event.text, *(link.text for link in culprit.chain), *(t for _, _, t in event.evidence)]
    category = culprit.category
    if category == "oom_gpu":
        culprit.advice += advice.oom_advice(event, texts)
    if category == "duplicate_device":
        culprit.advice += advice.duplicate_advice(texts)
    facts = advice.TimeoutFacts()
    for other in failures:
        facts.add(other)
    if facts.reporters or facts.named_missing:
        known = {e.rank for e in failures if e.rank is not None}
        lines, suspects = advice.timeout_advice(facts, known)
        if category == "collective_timeout" or culprit.kind == "symptom":
            culprit.advice += lines
            culprit.suspects = suspects
            if culprit.kind == "symptom" and len(suspects) == 1:
                culprit.rank = suspects[0]
                culprit.rank_note = (
                    f"rank {suspects[0]} did not report the timeout the other ranks hit: it is the likely "
                    "straggler; the timeouts on the other ranks are symptoms"
                )
        elif culprit.kind in ("root", "unknown") and facts.reporters:
            waiting = ", ".join(str(r) for r in sorted(facts.reporters) if r != culprit.rank)
            if waiting:
                culprit.advice.append(
                    f"The collective timeouts on rank(s) {waiting} are a consequence: they waited for "
                    f"rank {culprit.rank}, which had already failed."
                )
    if culprit.kind == "root" and category == "oom_host" and event.exit_code in _KILL_CODES:
        culprit.advice += advice.kill_advice(event)
    culprit.advice += event.notes
    if culprit.kind == "unknown":
        culprit.advice.append(
            "ddpdoctor does not know this message yet. Run `ddpdoctor explain --format markdown LOG... > "
            "report.md` and file it as a ddpdoctor issue so it can be added to the knowledge base."
        )


def _victims(
    culprit: Culprit | None, failures: list[Event], index: KbIndex
) -> list[tuple[Event, str, IndexEntry | None, str]]:
    """(event, category, entry, role) per other failing rank: `victim` for collateral, `also-failed` otherwise."""
    root = culprit.event if culprit else None
    root_rank = culprit.rank if culprit else None
    best: dict[Any, tuple[int, Event]] = {}
    for e in failures:
        if e is root or (e.rank is not None and e.rank == root_rank):
            continue
        if e.role == "wrapper" or (e.role == "exit" and e.rank is None):
            continue
        score = {"root": 0, "symptom": 1, "unknown": 2, "exit": 3}.get(e.role, 4)
        known = e.known()
        key: Any = e.rank if e.rank is not None else ("none", known.id if known else e.text[:80])
        if key not in best or score < best[key][0]:
            best[key] = (score, e)
    out: list[tuple[Event, str, IndexEntry | None, str]] = []
    for _key, (_score, e) in sorted(best.items(), key=lambda kv: _rank_sort(kv[1][1])):
        entry = e.known() or _exit_entry(e, index)
        collateral = e.role in ("symptom", "exit") or _is_collateral(e)
        category = entry.category if entry is not None else e.category()
        out.append((e, category, entry, "victim" if collateral else "also-failed"))
    return out


def _rank_sort(event: Event) -> tuple[int, int]:
    return (event.rank if event.rank is not None else 1 << 30, event.line)
