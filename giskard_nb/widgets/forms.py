"""Forms for registered checks, built from each check class's pydantic fields.

``check_kinds()`` lists the kinds a form can build (a check that needs a Python callable cannot be
typed into a form); ``CheckForm(kind)`` holds one input widget per field and ``build()`` validates
the values into a check, with the field at fault named in the error. The form shows the fields a
user fills (``check_catalogue.basic_fields``); ``show_advanced(True)`` shows the others too.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal

from pydantic import AliasChoices

from giskard_nb.core.check import Check
from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets.check_catalogue import basic_fields

__all__ = ["CheckForm", "check_kinds", "field_spec"]

_NONE = "(none)"


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """(inner type, optional?) with Annotated and ``X | None`` peeled off."""
    optional = False
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            optional = optional or len(args) < len(typing.get_args(annotation))
            if len(args) != 1:
                return annotation, optional
            annotation = args[0]
        else:
            return annotation, optional


def field_spec(annotation: Any) -> tuple[str, Any, bool]:
    """(widget kind, choices, optional) for a field: bool, int, float, str, choice or json."""
    inner, optional = _unwrap(annotation)
    if typing.get_origin(inner) is Literal:
        return "choice", [v for v in typing.get_args(inner) if v is not None], optional
    for kind, py in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if inner is py:
            return kind, None, optional
    return "json", None, optional


_CODE_FIELDS = frozenset({"fn", "func", "function", "callable"})


def _needs_callable(cls: type[Check]) -> bool:
    """A check with a required Python function (``from_fn``) cannot be typed into a form."""
    for name, info in cls.model_fields.items():
        if info.is_required() and (name in _CODE_FIELDS or "Callable" in str(info.annotation)):
            return True
    return False


def check_kinds() -> list[str]:
    """Registered check kinds that a form can build, sorted."""
    return sorted(k for k, cls in Check._registry.items() if not _needs_callable(cls))


def _input_key(name: str, info: Any) -> str:
    alias = info.validation_alias
    if isinstance(alias, AliasChoices):
        first = alias.choices[0]
        return first if isinstance(first, str) else name
    return alias if isinstance(alias, str) else name


def _label(name: str, required: bool) -> str:
    return f"{name.replace('_', ' ')}{' *' if required else ''}"


class CheckForm:
    """One form (a VBox of labelled inputs) for the check kind ``kind``: the fields a user fills,
    and the advanced ones (where the answer is read, normalisation, the judge model...) when
    ``advanced`` is true."""

    def __init__(self, kind: str, *, advanced: bool = False):
        import ipywidgets as w

        self.kind = kind
        self.cls = Check.registered_class(kind)
        self.fields: dict[str, tuple[str, Any, Any]] = {}  # name -> (widget kind, widget, info)
        self.basic = basic_fields(kind, self.cls)
        self._optional: set[str] = set()
        self._aliases: dict[str, str] = {}  # accepted alias (answer_key, key...) -> field name
        self._rows: dict[str, Any] = {}
        # every label in full: the label column is as wide as the longest label (about 8 px a letter)
        longest = max((len(_label(n, True)) for n in self.cls.model_fields), default=10)
        style = {"description_width": f"{max(120, 8 * longest + 12)}px"}
        for name, info in self.cls.model_fields.items():
            wkind, choices, optional = field_spec(info.annotation)
            required = info.is_required()
            default = None if required else info.get_default(call_default_factory=True)
            label = _label(name, required)
            lay = w.Layout(width="95%")
            if wkind == "bool":
                widget = w.Checkbox(value=bool(default), description=label, style=style)
            elif wkind == "choice":
                options = ([_NONE] if optional or required else []) + [str(c) for c in choices]
                value = _NONE if default is None else str(default)
                widget = w.Dropdown(
                    options=options, value=value if value in options else options[0],
                    description=label, style=style, layout=lay,
                )  # fmt: skip
            elif wkind == "json":
                shown = "" if required or _is_empty(default) else _json_or_repr(default)
                widget = w.Textarea(
                    value=shown, description=label, placeholder="JSON (or plain text)",
                    style=style, layout=lay, rows=2,
                )  # fmt: skip
            else:
                shown = "" if default is None or _is_empty(default) else str(default)
                widget = w.Text(value=shown, description=label, style=style, layout=lay)
            widget.tooltip = info.description or ""
            if isinstance(info.validation_alias, AliasChoices):
                for choice in info.validation_alias.choices:
                    if isinstance(choice, str):
                        self._aliases.setdefault(choice, name)
            self.fields[name] = (wkind, widget, info)
            if optional and default is not None:
                self._optional.add(name)  # "(none)" then means an explicit None
            self._rows[name] = widget
        hidden = len(self._rows) - len(self.basic)
        self._note = w.HTML(
            "<i style='color:#555'>"
            + ("nothing to fill: this check reads the agent's answer. " if not self.basic else "")
            + (f"{hidden} advanced fields hidden (where the answer is read from, "
               "normalisation, the judge model…)</i>" if hidden else "</i>")
        )  # fmt: skip
        self.widget = w.VBox()
        self.advanced = advanced
        self.show_advanced(advanced)

    def show_advanced(self, advanced: bool = True) -> CheckForm:
        """Show every field (``True``) or only the fields a user fills (``False``); returns the form.
        Hidden fields keep their values."""
        self.advanced = advanced
        shown = [n for n in self._rows if advanced or n in self.basic]
        note = [] if advanced or len(shown) == len(self._rows) else [self._note]
        self.widget.children = [self._rows[n] for n in shown] + note
        return self

    @property
    def shown(self) -> list[str]:
        """The names of the fields in view."""
        return [n for n, widget in self._rows.items() if widget in self.widget.children]

    def set(self, **values: Any) -> CheckForm:
        """Fill fields from Python values (what a user would type); returns the form. Field aliases
        (``answer_key``, ``key``...) are accepted."""
        for name, value in values.items():
            name = self._aliases.get(name, name)
            if name not in self.fields:
                raise GiskardValidationError(
                    f"{self.kind} has no field {name!r}; its fields: {', '.join(self.fields)}"
                )
            wkind, widget, _ = self.fields[name]
            if wkind == "bool":
                widget.value = bool(value)
            elif wkind == "json" and not isinstance(value, str):
                widget.value = json.dumps(value)
            elif wkind == "choice":
                widget.value = _NONE if value is None else str(value)
            else:
                widget.value = "" if value is None else str(value)
        return self

    def values(self) -> dict[str, Any]:
        """The typed values of the fields the user filled (blank fields keep their defaults)."""
        out: dict[str, Any] = {}
        for name, (wkind, widget, info) in self.fields.items():
            raw = widget.value
            key = _input_key(name, info)
            if wkind == "bool":
                if raw != bool(None if info.is_required() else info.get_default()):
                    out[key] = raw
                continue
            if wkind == "choice":
                if raw == _NONE and name in self._optional:
                    out[key] = None
                elif raw != _NONE:
                    inner, _ = _unwrap(info.annotation)
                    typed = {str(c): c for c in typing.get_args(inner)}
                    out[key] = typed.get(raw, raw)
                continue
            if isinstance(raw, str) and not raw.strip():
                continue
            out[key] = self._parse(name, wkind, raw)
        return out

    def _parse(self, name: str, wkind: str, raw: str) -> Any:
        try:
            if wkind == "int":
                return int(raw)
            if wkind == "float":
                return float(raw)
        except ValueError:
            raise GiskardValidationError(
                f"{self.kind}.{name} must be a number ({wkind}), got {raw!r}"
            ) from None
        if wkind == "json":
            try:
                return json.loads(raw)
            except json.JSONDecodeError:
                inner, _ = _unwrap(self.fields[name][2].annotation)
                if inner in (Any, object) or isinstance(inner, typing.TypeVar):
                    return raw  # free-form values may be plain text
                raise GiskardValidationError(
                    f'{self.kind}.{name} must be JSON (for example ["a", "b"] or {{"k": 1}}), '
                    f"got {raw!r}"
                ) from None
        return raw

    def build(self) -> Check:
        """Validate the form into a check; errors name the kind and the fields at fault."""
        from pydantic import ValidationError

        try:
            return self.cls.model_validate({"kind": self.kind, **self.values()})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or self.kind}: {e['msg']}" for e in exc.errors()
            )
            raise GiskardValidationError(f"invalid {self.kind} check — {problems}") from None


def _is_empty(value: Any) -> bool:
    from giskard_nb.core.missing import MISSING

    return value is MISSING or value in ({}, [], ())


def _json_or_repr(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
