"""Records: classes with dataclass-style fields that cost almost nothing to define.

`@dataclass` generates and `exec`s an `__init__`, `__repr__` and `__eq__` for every class it
makes (about half a millisecond each, and `import dataclasses` imports `inspect`), and
`ddpdoctor explain` on a small log defines dozens of classes before it reads a line. The records
on that path are therefore :class:`Record` subclasses. A subclass declares annotated fields as a
dataclass would (a default, or :func:`field` for a fresh list or dict per record); the one
`__init__`, `__eq__` and `__repr__` here read the field table that `__init_subclass__` builds, and
mypy checks constructors as it checks a dataclass's. `class X(Record, frozen=True)` is an
immutable, hashable value, as a frozen dataclass is. (A `typing.NamedTuple` costs about ten times
as much to define, more with string annotations, and is a tuple: iterable, equal to other tuples.)
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    from typing_extensions import Self, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options: object) -> Callable[[type], type]:
        """At run time only a marker for type checkers (typing has it from Python 3.11)."""
        return lambda cls: cls


_REQUIRED = object()


class _Factory:
    """The default of a field made fresh for each record."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default `default_factory()` makes for each record (`field(default_factory=list)`)."""
    return _Factory(default_factory)  # type: ignore[return-value]  # (the class turns it into T values)


@dataclass_transform(field_specifiers=(field,))
class Record:
    """Base of a mutable record: fields in declaration order (a base class's first), set by `__init__`."""

    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, object]] = {}
    _field_set: ClassVar[frozenset[str]] = frozenset()
    _fixed: ClassVar[dict[str, object]] = {}
    _factories: ClassVar[tuple[tuple[str, Callable[[], object]], ...]] = ()
    _required: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, *, frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = list(cls._fields)
        defaults = dict(cls._defaults)
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is what records avoid importing)
        for name, annotation in own.items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            if name not in fields:
                fields.append(name)
            default = cls.__dict__.get(name, _REQUIRED)
            if isinstance(default, _Factory):
                delattr(cls, name)  # each record gets its own; the class keeps none
            if default is _REQUIRED:
                defaults.pop(name, None)
            else:
                defaults[name] = default
        cls._fields = tuple(fields)
        cls._defaults = defaults
        # What `__init__` reads: the names, the fixed defaults, the factories and the names with none.
        cls._field_set = frozenset(fields)
        cls._fixed = {name: value for name, value in defaults.items() if not isinstance(value, _Factory)}
        cls._factories = tuple(
            (name, value.make) for name, value in defaults.items() if isinstance(value, _Factory)
        )
        cls._required = tuple(name for name in fields if name not in defaults)
        if frozen:
            for name, method in _FROZEN_METHODS.items():
                setattr(cls, name, method)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        fields = cls._fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments but {len(args)} were given")
        values = dict(zip(fields, args, strict=False))
        for name, value in kwargs.items():
            if name in values or name not in cls._field_set:
                raise TypeError(f"{cls.__name__}() got an unexpected or repeated argument {name!r}")
            values[name] = value
        for name in cls._required:
            if name not in values:
                raise TypeError(f"{cls.__name__}() missing required argument {name!r}")
        # Straight into the instance's dict: a frozen record refuses `setattr`, and one dict update is
        # far cheaper than a call per field (observations have dozens, and a large log makes many).
        state = self.__dict__
        state.update(cls._fixed)
        for name, make in cls._factories:
            if name not in values:
                state[name] = make()
        state.update(values)

    def __repr__(self) -> str:
        inside = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({inside})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, name) for name in self._fields) == tuple(
            getattr(other, name) for name in self._fields
        )

    def _replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (what `dataclasses.replace` makes of a dataclass)."""
        return type(self)(**{**{name: getattr(self, name) for name in self._fields}, **changes})


def _refuse_assignment(record: Record, name: str, value: object) -> None:
    raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(record).__name__}")


def _refuse_deletion(record: Record, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r} of a frozen {type(record).__name__}")


def _hash_of_fields(record: Record) -> int:
    return hash(tuple(getattr(record, name) for name in record._fields))


# What `class X(Record, frozen=True)` gets, as a frozen dataclass does: no changes, a hash of its fields.
_FROZEN_METHODS = {
    "__setattr__": _refuse_assignment,
    "__delattr__": _refuse_deletion,
    "__hash__": _hash_of_fields,
}
