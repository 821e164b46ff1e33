"""The UCI options: one table with each option's type, range and effect.

>>> Option("Hash", "spin", 16, 1, 4096).uci_line()
'option name Hash type spin default 16 min 1 max 4096'
>>> Option("Ponder", "check", False).parse("true")
True
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class OptionError(ValueError):
    pass


@dataclass
class Option:
    name: str
    type: str                           # check, spin, combo, button, string
    default: Any = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    apply: Callable[[Any], None] = field(default=lambda value: None, repr=False)

    def uci_line(self) -> str:
        line = f"option name {self.name} type {self.type}"
        if self.type == "button":
            return line
        default = str(self.default).lower() if self.type == "check" else self.default
        line += f" default {'<empty>' if default == '' else default}"
        if self.type == "spin":
            line += f" min {self.min} max {self.max}"
        for choice in self.choices:
            line += f" var {choice}"
        return line

    def parse(self, text: str | None) -> Any:
        """The value ``setoption ... value <text>`` asks for; OptionError if invalid."""
        if self.type == "button":
            return None
        if text is None:
            raise OptionError(f"option {self.name} needs a value")
        if self.type == "check":
            if text.lower() not in ("true", "false"):
                raise OptionError(f"option {self.name} takes true or false, not {text!r}")
            return text.lower() == "true"
        if self.type == "spin":
            try:
                value = int(text)
            except ValueError:
                raise OptionError(f"option {self.name} takes an integer, not {text!r}") from None
            if not self.min <= value <= self.max:
                raise OptionError(f"option {self.name} must be in {self.min}..{self.max}, not {value}")
            return value
        if self.type == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise OptionError(f"option {self.name} is one of {', '.join(self.choices)}, not {text!r}")
        return text


class Options:
    """The option table of one session, with current values.

    ``setoption name <name> [value <value>]``: names are matched without
    regard to case, and may contain spaces.
    """

    def __init__(self, options: list[Option]) -> None:
        self._options = {o.name.lower(): o for o in options}
        self.values = {o.name: o.default for o in options if o.type != "button"}

    def __iter__(self):
        return iter(self._options.values())

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def default(self, name: str) -> Any:
        """The option's declared default (``values`` holds the current one)."""
        return self._options[name.lower()].default

    def set(self, args: list[str]) -> None:
        """Carry out ``setoption`` (its tokens after the word); OptionError if malformed."""
        option, value = self.check(args)
        if option.type == "button":
            option.apply(value)
            return
        # Stored before it is applied: an effect may read the table (HistoryWeight
        # does), and it must see the new value; undone if applying fails.
        old, self.values[option.name] = self.values[option.name], value
        try:
            option.apply(value)
        except Exception:
            self.values[option.name] = old
            raise

    def check(self, args: list[str]) -> tuple[Option, Any]:
        """The option and value ``setoption`` names, without applying it."""
        if not args or args[0] != "name":
            raise OptionError("setoption needs 'name <option> [value <value>]'")
        if "value" in args:
            at = args.index("value")
            name, text = " ".join(args[1:at]), " ".join(args[at + 1:])
        else:
            name, text = " ".join(args[1:]), None
        option = self._options.get(name.lower())
        if option is None:
            raise OptionError(f"no such option: {name!r}")
        return option, option.parse(text)
