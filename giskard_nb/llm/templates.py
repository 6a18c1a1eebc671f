"""Prompt templates: Jinja in a sandbox, inline or by reference, rendered into chat messages.

- Inline: any string is a Jinja template (``"Is this polite? {{ trace.last.outputs }}"``).
- By reference: ``TemplateReference(template_name="my_project::checks/custom.j2")`` names a file inside a
  folder registered with ``register_template_folder("my_project", "path/to/prompts")``. A name without
  ``namespace::`` is looked up in ``./prompts`` (relative to the working directory). The built-in
  prompts live in the namespaces ``giskard_nb.checks``, ``giskard_nb.input_generators``,
  ``giskard_nb.dataset_generation``, ``giskard_nb.hub`` and ``giskard_nb.kb``.

Rendering: the package's hardened sandbox (``giskard_nb.llm.sandbox``: an
``ImmutableSandboxedEnvironment``, so no ``__class__``/``__globals__`` tricks and no mutation of inputs, with
limits on render time, output size, ``range()`` size and value sizes, raising ``TemplateLimitError``) with ``StrictUndefined`` (a misspelt variable is an error naming the available ones).
Values reach the model verbatim: no HTML escaping. Dicts, lists and pydantic models are written as
indented JSON, ``None`` as an empty string. ``{% message "system" %}...{% endmessage %}`` blocks (roles
``system``, ``user``, ``assistant``) make several chat messages; without blocks the whole text is one user
message. Block boundaries carry a random per-render marker, so a value cannot forge a message.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from giskard_nb.llm.sandbox import TemplateError, TemplateLimitError, render_limited, sandbox

__all__ = [
    "TemplateError",
    "TemplateLimitError",
    "TemplateReference",
    "prompt_text",
    "register_template_folder",
    "registered_template_folders",
    "render_messages",
    "render_text",
    "template_variables",
]

ROLES = ("system", "user", "assistant")
_PACKAGE = Path(__file__).resolve().parents[1]
_folders: dict[str, Path] = {
    "giskard_nb.checks": _PACKAGE / "checks" / "llm" / "prompts",
    "giskard_nb.dataset_generation": _PACKAGE / "dataset_generation" / "prompts",
    "giskard_nb.hub": _PACKAGE / "hub" / "prompts",
    "giskard_nb.kb": _PACKAGE / "kb" / "prompts",
    "giskard_nb.input_generators": _PACKAGE / "input_generators" / "prompts",
    # the namespace's name before the package was renamed (giskard_nb.generators), still accepted
    "giskard_nb.generators": _PACKAGE / "input_generators" / "prompts",
}
_BLOCK = re.compile(rf"\x00([0-9a-f]{{16}}):({'|'.join(ROLES)})\x00(.*?)\x00\1:end\x00", re.DOTALL)
_random = random.Random(os.urandom(16))  # marker nonces: unpredictable, cheap
_lock = threading.Lock()
_env: dict[str, Any] = {}
_compiled: dict[str, Any] = {}


class TemplateReference(BaseModel):
    """A prompt stored in a file: ``TemplateReference(template_name="namespace::path/to/file.j2")``."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    template_name: str

    @field_validator("template_name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not value.strip() or value.count("::") > 1:
            raise TemplateError(
                f"template_name must look like 'namespace::path/file.j2', got {value!r}"
            )
        return value.strip()


def register_template_folder(namespace: str, path: str | Path) -> None:
    """Make the ``.j2`` files under ``path`` available as ``TemplateReference("namespace::file.j2")``."""
    if not isinstance(namespace, str) or not namespace.strip() or "::" in namespace:
        raise TemplateError(
            f"a template namespace must be a non-empty name without '::', got {namespace!r}"
        )
    folder = Path(path).expanduser().resolve()
    if not folder.is_dir():
        raise TemplateError(
            f"cannot register {str(path)!r} for namespace {namespace!r}: not a folder"
        )
    with _lock:
        _folders[namespace.strip()] = folder
        env = _env.get("env")
        if env is not None and env.cache is not None:
            env.cache.clear()  # a namespace may now point elsewhere


def registered_template_folders() -> dict[str, Path]:
    """Namespace -> folder, including the built-in ones."""
    return dict(_folders)


def render_messages(
    prompt: str | TemplateReference, inputs: dict[str, Any]
) -> list[dict[str, str]]:
    """Render ``prompt`` with ``inputs`` into chat messages (see the module docstring)."""
    nonce = f"{_random.getrandbits(64):016x}"
    text = _render(prompt, inputs, nonce)
    messages: list[dict[str, str]] = []
    outside: list[str] = []
    position = 0
    for match in _BLOCK.finditer(text):
        if match.group(1) != nonce:  # not one of this render's markers: ordinary text
            continue
        outside.append(text[position : match.start()])
        content = match.group(3).strip()
        if content:
            messages.append({"role": match.group(2), "content": content})
        position = match.end()
    outside.append(text[position:])
    if messages and "".join(outside).strip():
        stray = "".join(outside).strip()
        raise TemplateError(
            f"{_label(prompt)} has text outside its {{% message %}} blocks: {stray[:120]!r}; put it "
            "inside a block or remove the blocks"
        )
    if not messages:
        if not text.strip():
            raise TemplateError(f"{_label(prompt)} rendered to an empty prompt")
        messages = [{"role": "user", "content": text.strip()}]
    return messages


def render_text(prompt: str | TemplateReference, inputs: dict[str, Any]) -> str:
    """Render ``prompt`` into plain text (message blocks are not allowed here)."""
    messages = render_messages(prompt, inputs)
    if len(messages) != 1 or messages[0]["role"] != "user":
        raise TemplateError(f"{_label(prompt)} must render to plain text, without message blocks")
    return messages[0]["content"]


def template_variables(prompt: str | TemplateReference) -> set[str]:
    """The variables a template reads (``{{ trace.last.outputs }}`` reads ``trace``)."""
    if isinstance(prompt, str):
        return set(_inline_variables(prompt))
    return _variables(prompt)


@functools.lru_cache(maxsize=1024)
def _inline_variables(prompt: str) -> frozenset[str]:
    return frozenset(_variables(prompt))


def _variables(prompt: str | TemplateReference) -> set[str]:
    import jinja2
    from jinja2 import meta

    env = _environment()
    try:
        if isinstance(prompt, TemplateReference):
            source = env.loader.get_source(env, prompt.template_name)[0]
        else:
            source = prompt
        return set(meta.find_undeclared_variables(env.parse(source))) - {"_gnb_nonce"}
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(
            f"template {exc.name!r} not found; registered namespaces: {', '.join(sorted(_folders))}"
        ) from None
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"{_label(prompt)} is not valid Jinja (line {exc.lineno}): {exc.message}"
        ) from None


def _label(prompt: str | TemplateReference) -> str:
    if isinstance(prompt, TemplateReference):
        return f"the template {prompt.template_name!r}"
    return "the prompt template"


def _render(prompt: str | TemplateReference, inputs: dict[str, Any], nonce: str) -> str:
    import jinja2
    from jinja2.sandbox import SecurityError

    env = _environment()
    try:
        if isinstance(prompt, TemplateReference):
            template = env.get_template(prompt.template_name)
        elif isinstance(prompt, str):
            template = _compiled.get(prompt)
            if template is None:
                template = env.from_string(prompt)
                if len(_compiled) < 1024:
                    _compiled[prompt] = template
        else:
            raise TemplateError(
                f"a prompt must be a string or a TemplateReference, got {type(prompt).__name__}"
            )
        return render_limited(template, {**inputs, "_gnb_nonce": nonce}, label=_label(prompt))
    except SecurityError as exc:
        raise TemplateError(
            f"{_label(prompt)} tried something the sandbox forbids: {exc}"
        ) from None
    except jinja2.UndefinedError as exc:
        available = ", ".join(sorted(k for k in inputs if not k.startswith("_"))) or "(none)"
        raise TemplateError(
            f"{_label(prompt)} uses an undefined value ({exc}); available inputs: {available}"
        ) from None
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(
            f"template {exc.name!r} not found; registered namespaces: "
            f"{', '.join(sorted(_folders))} (add one with register_template_folder(namespace, path))"
        ) from None
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"{_label(prompt)} is not valid Jinja (line {exc.lineno}): {exc.message}"
        ) from None


def _environment() -> Any:
    env = _env.get("env")
    if env is not None:
        return env
    with _lock:
        if "env" not in _env:
            _env["env"] = _build_environment()
    return _env["env"]


def _build_environment() -> Any:
    import jinja2
    from jinja2 import nodes
    from jinja2.ext import Extension

    class MessageBlocks(Extension):
        tags = {"message"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            current = parser.stream.current
            if current.type == "name" and current.value in ROLES:
                role: Any = nodes.Const(next(parser.stream).value)
            else:
                role = parser.parse_expression()
            body = parser.parse_statements(("name:endmessage",), drop_needle=True)
            call = self.call_method("_block", [role, nodes.Name("_gnb_nonce", "load")])
            return nodes.CallBlock(call, [], [], body).set_lineno(lineno)

        def _block(self, role: Any, nonce: str, caller: Any) -> str:
            if role not in ROLES:
                raise TemplateError(f"message role must be one of {ROLES}, got {role!r}")
            return f"\x00{nonce}:{role}\x00{caller()}\x00{nonce}:end\x00"

    class NamespaceLoader(jinja2.BaseLoader):
        def get_source(self, environment: Any, template: str) -> tuple[str, str, Any]:
            namespace, _, name = template.rpartition("::")
            folder = _folders.get(namespace) if namespace else Path.cwd() / "prompts"
            if folder is None:
                raise jinja2.TemplateNotFound(template)
            path = (folder / name).resolve()
            if not path.is_relative_to(folder.resolve()) or not path.is_file():
                raise jinja2.TemplateNotFound(template)
            source = path.read_text(encoding="utf-8")
            if path.is_relative_to(_PACKAGE):  # built-in prompts do not change while running
                return source, str(path), lambda: True
            mtime = path.stat().st_mtime
            return source, str(path), lambda: path.is_file() and path.stat().st_mtime == mtime

    return sandbox(
        loader=NamespaceLoader(),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        finalize=prompt_text,
        extensions=[MessageBlocks],
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def prompt_text(value: Any) -> Any:
    """How a value is written into a prompt: verbatim text; JSON for structures; '' for None."""
    if value is None:
        return ""
    if isinstance(value, str | int | float | bool):
        return value
    try:
        if isinstance(value, BaseModel):
            data = value.model_dump(mode="json", exclude=_computed(value))
            return json.dumps(data, ensure_ascii=False, indent=2, default=str)
        if isinstance(value, dict | list | tuple):
            return json.dumps(value, ensure_ascii=False, indent=2, default=_plain)
    except (TypeError, ValueError):
        pass
    return str(value)


def _computed(value: BaseModel) -> set[str]:
    return set(type(value).model_computed_fields)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude=_computed(value))
    return str(value)
