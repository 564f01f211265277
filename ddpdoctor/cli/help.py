"""`--help` that reads like a hand-written tool's: plain metavars, no type tags, one example per command.

Typer's plain help shows `{LOG}...`, `<list[str]>` and `[x>=0]`; these command classes lay out the
usage line and the option rows from click's parameter attributes alone, the same on every typer
release. Commands pass their example as `epilog`.
"""

from __future__ import annotations

import enum
from typing import Any

import typer.core


def _metavar(param: Any) -> str:
    """The placeholder of a value: the declared metavar, else the parameter's name in capitals."""
    name = param.metavar or (param.name or "value").upper()
    return str(name).removesuffix("...").strip("[]")


def _usage_piece(param: Any) -> str:
    piece = _metavar(param) + ("..." if param.nargs != 1 else "")
    return piece if param.required else f"[{piece}]"


def _default(param: Any) -> str | None:
    value = param.default
    if not param.show_default or value is None or value is False or value == () or value == []:
        return None
    if param.is_flag and not param.secondary_opts:
        return None
    if param.is_flag:  # --speed/--no-speed
        return str((param.opts if value else param.secondary_opts)[0]).lstrip("-")
    return str(value.value if isinstance(value, enum.Enum) else value)


def _row(param: Any) -> tuple[str, str]:
    if param.param_type_name == "argument":
        return _usage_piece(param), param.help or ""
    names = ", ".join(sorted(param.opts, key=len))
    if param.secondary_opts:
        names += " / " + ", ".join(param.secondary_opts)
    elif not param.is_flag:
        names += f" {_metavar(param)}"
    default = _default(param)
    return names, (param.help or "") + (f" (default: {default})" if default else "")


class _PlainHelp:
    """Usage pieces and option rows from click's parameter attributes, without type tags."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """`[OPTIONS] LOG...`: arguments by their metavar, optional ones in brackets; a group's COMMAND."""
        pieces = [self.options_metavar] if self.options_metavar else []  # type: ignore[attr-defined]
        params = self.get_params(ctx)  # type: ignore[attr-defined]
        pieces += [_usage_piece(p) for p in params if p.param_type_name == "argument"]
        if isinstance(self, typer.core.TyperGroup):
            pieces.append(self.subcommand_metavar)
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """An Arguments section, then an Options section, each `name  help` rows."""
        params = [p for p in self.get_params(ctx) if not getattr(p, "hidden", False)]  # type: ignore[attr-defined]
        for title, kind in (("Arguments", "argument"), ("Options", "option")):
            rows = [_row(p) for p in params if p.param_type_name == kind]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        if isinstance(self, typer.core.TyperGroup):
            self.format_commands(ctx, formatter)


class PlainHelpCommand(_PlainHelp, typer.core.TyperCommand):
    """A typer command whose help is laid out by :class:`_PlainHelp`."""


class PlainHelpGroup(_PlainHelp, typer.core.TyperGroup):
    """A typer group whose help is laid out by :class:`_PlainHelp`."""


def example(command: str) -> str:
    """An epilog that shows one example invocation, kept on its own line."""
    return f"\b\nExample:\n  {command}"
