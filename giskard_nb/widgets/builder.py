"""ScenarioBuilder: compose a scenario's interactions and checks with forms, preview its JSON, run it
against an agent, save it.

Check forms come from the check registry (every registered kind a form can fill, with each class's
own pydantic fields), so custom ``@Check.register`` checks appear too. The kinds are grouped by
family, the common ones first; a form shows the fields a user fills, "advanced fields" the others.
Every button has a method: ``choose_check``, ``add_interaction``, ``add_check``, ``remove_last``,
``preview``, ``run``, ``save``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from giskard_nb.core.check import Check
from giskard_nb.core.missing import MISSING
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import Job, View, esc, id_of, named, pre, show_errors
from giskard_nb.widgets.backends import offload_sync_agent
from giskard_nb.widgets.check_catalogue import FAMILIES, families
from giskard_nb.widgets.forms import CheckForm, check_kinds

__all__ = ["SAVE_HINT", "ScenarioBuilder"]

#: Shown beside the disabled Save button of a builder made without ``on_save``.
SAVE_HINT = (
    "Save is off: to store this scenario as a Hub test case, create the builder with "
    "<code>on_save=save_to_hub(hub, dataset_id)</code> "
    "(<code>from giskard_nb.widgets import save_to_hub</code>)."
)


class ScenarioBuilder(View):
    """Build a Scenario in a form.

    ``agents``: a callable or ``{name: callable}`` to run the scenario against. ``on_save(scenario)``
    stores it (for example in a Hub dataset); ``save()`` returns what ``on_save`` returned.
    """

    def __init__(
        self,
        agents: Any = None,
        *,
        name: str = "New scenario",
        on_save: Callable[[Scenario], Any] | None = None,
    ):
        self.agents = named(agents, "agents", "agent")
        self.on_save = on_save
        self.scenario = Scenario(name)
        self.result: ScenarioResult | None = None
        self.job: Job | None = None
        self._forms: dict[str, CheckForm] = {}
        self.families = families(check_kinds())
        self._build()

    # -- actions -------------------------------------------------------------------------------------

    def choose_check(self, kind: str) -> CheckForm:
        """Show the form of check ``kind`` (its family is picked in the first dropdown); returns it."""
        family = next((f for f, kinds in self.families.items() if kind in kinds), None)
        if family is None:
            every = sorted({k for kinds in self.families.values() for k in kinds})
            raise GiskardValidationError(
                f"unknown check kind {kind!r}: choose one of {', '.join(map(repr, every))}"
            )
        if kind not in self.families.get(self._w["family"].value, ()):
            self._w["family"].value = family
        self._w["kind"].value = kind
        return self._form(kind)

    def add_interaction(self, inputs: Any, outputs: Any = MISSING) -> Scenario:
        """Add a user turn; ``outputs`` left out means the agent answers it at run time."""
        if isinstance(inputs, str) and not inputs.strip():
            raise GiskardValidationError("an interaction needs some input text")
        self.scenario.interact(inputs, outputs)
        self._changed()
        return self.scenario

    def add_check(self, check: Check | str, **params: Any) -> Check:
        """Add a check: a Check object, or a registered kind and its parameters."""
        if isinstance(check, str):
            form = CheckForm(check).set(**params)
            check = form.build()
        elif params:
            raise GiskardValidationError("give parameters only with a check kind, not a Check")
        self.scenario.check(check)
        self._changed()
        return check

    def remove_last(self) -> None:
        """Undo: remove the last check, or the last interaction of a step without checks."""
        steps = self.scenario.steps
        if not steps:
            return
        last = steps[-1]
        if last.checks:
            last.checks.pop()
        elif last.interacts:
            last.interacts.pop()
        if not last.checks and not last.interacts:
            steps.pop()
        self._changed()

    def preview(self) -> str:
        """The scenario as JSON (what gets saved); also shown in the preview pane."""
        data = self.scenario.model_dump(mode="json", exclude={"target"})
        text = json.dumps(data, indent=2, ensure_ascii=False)
        self._w["preview"].value = pre(text, 20000)
        return text

    def run(self, agent: str | None = None) -> Job:
        """Run the scenario against ``agent`` (default: the dropdown's choice) in the background."""
        if not self.agents:
            raise GiskardValidationError("no agent to run against: ScenarioBuilder(agents=...)")
        agent = agent or self._w["agent"].value
        if agent not in self.agents:
            raise GiskardValidationError(
                f"unknown agent {agent!r}: choose one of {', '.join(map(repr, self.agents))}"
            )
        if not self.scenario.steps:
            raise GiskardValidationError("the scenario is empty: add an interaction first")
        self._w["result"].value = "<i>running…</i>"
        scenario = self.scenario.model_copy(deep=False)
        coro = scenario.run(offload_sync_agent(self.agents[agent]))
        self.job = Job(coro, on_done=self._on_done, name="giskard-nb-builder-run")
        return self.job

    def save(self) -> Any:
        """Hand the scenario to ``on_save`` (e.g. store it as a Hub test case); returns its result."""
        if self.on_save is None:
            raise GiskardValidationError(
                "nothing to save to: create the builder with on_save=... (for example a function "
                "that adds the scenario to a Hub dataset)"
            )
        if not self.scenario.steps:
            raise GiskardValidationError("the scenario is empty: add an interaction first")
        saved = self.on_save(self.scenario)
        stored = id_of(saved)
        self._w["message"].value = (
            f"<span class='giskard-saved' style='color:#2e7d32'>✓ saved “{esc(self.scenario.name)}”"
            + (f" as test case <code>{esc(stored)}</code>" if stored else "")
            + "</span>"
        )
        return saved

    # -- internals -----------------------------------------------------------------------------------

    def _on_done(self, job: Job) -> None:
        if job.error is not None:
            self._w["result"].value = f"<b>run failed:</b> {esc(job.error)}"
            return
        self.result = job.result()
        self._w["result"].value = self.result._repr_html_()

    def _changed(self) -> None:
        rows = []
        for i, step in enumerate(self.scenario.steps, 1):
            for spec in step.interacts:
                inputs = getattr(spec, "inputs", spec)
                outputs = getattr(spec, "outputs", MISSING)
                fixed = "" if outputs is MISSING else f" → fixed output {esc(outputs, 200)}"
                rows.append(f"<li>step {i}: user says <code>{esc(inputs, 200)}</code>{fixed}</li>")
            for check in step.checks:
                params = check.model_dump(
                    mode="json", exclude={"kind", "name", "description"}, exclude_defaults=True
                )
                rows.append(
                    f"<li>step {i}: check <b>{esc(check.label)}</b> <code>{esc(params, 300)}</code></li>"
                )
        self._w["steps"].value = "<ol style='margin:0'>" + "".join(rows) + "</ol>" if rows else ""
        self.preview()

    def _form(self, kind: str) -> CheckForm:
        if kind not in self._forms:
            self._forms[kind] = CheckForm(kind)
        return self._forms[kind].show_advanced(self._w["advanced"].value)

    def _show_form(self, kind: str) -> None:
        self._w["form"].children = [self._form(kind).widget]

    def _show_family(self, family: str) -> None:
        kinds = self.families[family]
        self._w["kind"].options = [(k.replace("_", " "), k) for k in kinds]
        self._w["kind"].value = kinds[0]  # (the kind's observer shows its form)

    def _guard(self, action: Callable[[], Any]) -> None:
        """Run a button's action; a bad input is shown in the message line instead of raised."""
        show_errors(action, self._w["message"])

    def _build(self) -> None:
        import ipywidgets as w

        titles = {family: title for family, title, _modules in FAMILIES}
        default = next(iter(self.families.values()))[0]
        auto = {"description_width": "initial"}
        self._w = {
            "name": w.Text(value=self.scenario.name, description="name"),
            "tags": w.Text(placeholder="topic:billing, smoke", description="tags"),
            "inputs": w.Textarea(placeholder="what the user says", description="user", rows=2),
            "outputs": w.Text(placeholder="(leave empty: the agent answers)", description="output"),
            "add_interaction": w.Button(description="Add interaction", icon="comment"),
            "family": w.Dropdown(
                options=[(titles[f], f) for f in self.families],
                description="check family",
                style=auto,
            ),
            "kind": w.Dropdown(
                options=[(k.replace("_", " "), k) for k in next(iter(self.families.values()))],
                value=default,
                description="check",
                style=auto,
            ),
            "advanced": w.Checkbox(value=False, description="advanced fields", indent=False),
            "form": w.VBox(),
            "add_check": w.Button(description="Add check", icon="check"),
            "undo": w.Button(description="Remove last", icon="undo"),
            "agent": w.Dropdown(options=list(self.agents), description="agent"),
            "run": w.Button(description="Run", button_style="primary", icon="play"),
            "save": w.Button(
                description="Save",
                icon="save",
                disabled=self.on_save is None,
                tooltip="needs on_save=save_to_hub(hub, dataset_id)"
                if self.on_save is None
                else "",
            ),
            "save_hint": w.HTML(f"<small>{SAVE_HINT}</small>" if self.on_save is None else ""),
            "steps": w.HTML(),
            "message": w.HTML(),
            "preview": w.HTML(),
            "result": w.HTML(),
        }
        ww = self._w
        ww["name"].observe(lambda ch: self._rename(ch["new"]), names="value")
        ww["tags"].observe(lambda ch: self._guard(lambda: self._retag(ch["new"])), names="value")
        ww["family"].observe(lambda ch: self._show_family(ch["new"]), names="value")
        ww["kind"].observe(lambda ch: self._show_form(ch["new"]), names="value")
        ww["advanced"].observe(lambda _: self._show_form(ww["kind"].value), names="value")
        ww["add_interaction"].on_click(lambda _: self._guard(self._add_interaction_from_form))
        ww["add_check"].on_click(
            lambda _: self._guard(lambda: self.add_check(self._form(ww["kind"].value).build()))
        )
        ww["undo"].on_click(lambda _: self._guard(self.remove_last))
        ww["run"].on_click(lambda _: self._guard(self.run))
        ww["save"].on_click(lambda _: self._guard(self.save))
        self._show_form(default)
        self.widget = w.VBox(
            [
                w.HBox([ww["name"], ww["tags"]]),
                w.HBox([ww["inputs"], w.VBox([ww["outputs"], ww["add_interaction"]])]),
                w.HBox([ww["family"], ww["kind"], ww["advanced"]]),
                ww["form"],
                w.HBox([ww["add_check"], ww["undo"]]),
                ww["message"],
                ww["steps"],
                w.HBox([ww["agent"], ww["run"], ww["save"]]),
                ww["save_hint"],
                ww["result"],
                w.Accordion(children=[ww["preview"]], titles=("Scenario JSON",)),
            ]
        )
        self.widget.add_class("giskard-scenario-builder")
        self._changed()

    def _rename(self, name: str) -> None:
        self.scenario.name = name.strip() or "New scenario"
        self.preview()

    def _retag(self, text: str) -> None:
        tags = [t.strip() for t in text.split(",") if t.strip()]
        self.scenario.with_tags(tags)
        self.preview()

    def _add_interaction_from_form(self) -> None:
        outputs = self._w["outputs"].value
        self.add_interaction(self._w["inputs"].value, outputs if outputs.strip() else MISSING)
        self._w["inputs"].value = ""
        self._w["outputs"].value = ""
