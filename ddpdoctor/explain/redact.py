"""`--redact`: hide host names, IP addresses and home folders before a report is shared."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable
from typing import Any

from ddpdoctor.records import Record

_HOME = re.compile(r"(/home/|/Users/|[A-Za-z]:\\Users\\)[^/\\\s'\"]{1,64}")
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_HOST_FIELD = re.compile(r"\bhost\s*:\s*([\w.-]{2,253})")
_NCCL_HOST = re.compile(r"^\s*([A-Za-z][\w.-]{1,252}):\d{1,10}:\d{1,10} \[\d{1,4}\]", re.MULTILINE)


def hosts_in(texts: Iterable[str]) -> set[str]:
    """Host names the texts reveal: torchrun's `host :` fields and NCCL's `host:pid:tid [dev]` prefixes."""
    found: set[str] = set()
    for text in texts:
        found.update(_HOST_FIELD.findall(text))
        found.update(_NCCL_HOST.findall(text))
    return found


def redactor(hosts: Iterable[str]) -> Callable[[str], str]:
    """A function that hides home folders, IPv4 addresses and the given host names in a text."""
    names = sorted({h for h in hosts if h}, key=len, reverse=True)
    host_re = re.compile("|".join(re.escape(h) for h in names)) if names else None

    def redact(text: str) -> str:
        text = _HOME.sub("~", text)
        text = _IPV4.sub("<ip>", text)
        return host_re.sub("<host>", text) if host_re is not None else text

    return redact


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """A copy of a report value (records, lists, tuples, dicts) with `fn` applied to every string."""
    if isinstance(value, enum.Enum):
        return value
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, Record):
        return type(value)(**{name: map_strings(getattr(value, name), fn) for name in value._fields})
    if isinstance(value, list):
        return [map_strings(v, fn) for v in value]
    if isinstance(value, tuple):
        return tuple(map_strings(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: map_strings(v, fn) for k, v in value.items()}
    return value
