"""Playground: chat with an agent, keep the conversation, turn it into a test case.

The agent is called like a scenario target (``inputs`` and, if it wants it, ``trace``: the
conversation so far), in the background, so the kernel stays free. Every button has a method:
``send``, ``reset``, ``save``; ``to_scenario()`` turns the conversation into a Scenario whose
interactions replay the recorded answers (or, with ``replay=False``, ask the agent again).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.spec import timed_call_target
from giskard_nb.errors import GiskardValidationError
from giskard_nb.widgets._common import Job, View, esc, id_of, named, show_errors
from giskard_nb.widgets._render import conversation_html, trace_messages
from giskard_nb.widgets.backends import offload_sync_agent

__all__ = ["Playground"]


class Playground(View):
    """Chat with ``agents`` (a callable or ``{name: callable}``).

    ``on_save(scenario)`` stores the conversation as a test case (for example in a Hub dataset).
    """

    def __init__(self, agents: Any, *, on_save: Callable[[Scenario], Any] | None = None):
        self.agents = named(agents, "agents", "agent")
        if not self.agents:
            raise GiskardValidationError("Playground needs an agent: Playground(my_agent)")
        self.on_save = on_save
        self.trace = Trace()
        self.job: Job | None = None
        self.last_error: str | None = None
        self._build()

    # -- actions -------------------------------------------------------------------------------------

    def send(self, message: Any, *, agent: str | None = None) -> Job:
        """Send ``message`` to the agent in the background; ``await pg.job`` (or ``pg.job.wait()``
        in a script) returns its answer, which is added to the conversation."""
        if isinstance(message, str) and not message.strip():
            raise GiskardValidationError("type a message first")
        if self.job is not None and not self.job.done():
            raise GiskardValidationError("the agent is still answering the previous message")
        agent = agent or self._w["agent"].value
        if agent not in self.agents:
            raise GiskardValidationError(
                f"unknown agent {agent!r}: choose one of {', '.join(map(repr, self.agents))}"
            )
        target = offload_sync_agent(self.agents[agent])
        self._pending = message
        self._render(thinking=True)
        self.job = Job(self._ask(target, message), on_done=self._on_done, name="giskard-nb-chat")
        return self.job

    def reset(self) -> None:
        """Start a new conversation."""
        self.trace = Trace()
        self.last_error = None
        self._render()

    def to_scenario(
        self, name: str | None = None, *, checks: Sequence[Check] = (), replay: bool = True
    ) -> Scenario:
        """The conversation as a Scenario: one interaction per turn (recorded outputs when
        ``replay``, else the agent answers again at run time), then ``checks`` on the last turn."""
        if not self.trace.interactions:
            raise GiskardValidationError("the conversation is empty: send() a message first")
        scenario = Scenario(name or self._w["name"].value.strip() or "Playground conversation")
        for it in self.trace.interactions:
            if replay:
                scenario.interact(it.inputs, it.outputs, metadata=dict(it.metadata))
            else:
                scenario.interact(it.inputs, metadata=dict(it.metadata))
        scenario.checks(*checks)
        return scenario

    def save(self, name: str | None = None, *, checks: Sequence[Check] = ()) -> Any:
        """Hand ``to_scenario()`` to ``on_save`` (e.g. a Hub dataset); returns what it returned."""
        if self.on_save is None:
            raise GiskardValidationError(
                "nothing to save to: create the Playground with on_save=... (for example a "
                "function that adds the scenario to a Hub dataset)"
            )
        scenario = self.to_scenario(name, checks=checks)
        saved = self.on_save(scenario)
        stored = id_of(saved)
        self._w["message"].value = (
            f"<span class='giskard-saved' style='color:#2e7d32'>✓ saved “{esc(scenario.name)}”"
            + (f" as test case <code>{esc(stored)}</code>" if stored else "")
            + "</span>"
        )
        return saved

    # -- internals -----------------------------------------------------------------------------------

    async def _ask(self, target: Any, message: Any) -> Any:
        out, latency_s = await timed_call_target(target, message, self.trace)
        if not isinstance(out, Interaction):
            interaction = Interaction(inputs=message, outputs=out, latency_s=latency_s)
        elif out.latency_s is None and latency_s is not None:
            interaction = out.model_copy(update={"latency_s": latency_s})
        else:
            interaction = out
        self.trace = self.trace.appended(interaction)
        return interaction.outputs

    def _on_done(self, job: Job) -> None:
        self.last_error = None
        if job.error is not None and not job.cancelled:
            self.last_error = f"{type(job.error).__name__}: {job.error}"
        self._render()

    def _render(self, thinking: bool = False) -> None:
        messages = trace_messages(self.trace.interactions)
        if thinking:
            messages.append({"role": "user", "content": self._pending})
        bubbles = [conversation_html(messages)] if messages else []
        if thinking:
            bubbles.append("<div><i>the agent is answering…</i></div>")
        if self.last_error:
            bubbles.append(
                f"<div style='color:#c62828'>the agent raised {esc(self.last_error)}</div>"
            )
        self._w["chat"].value = (
            "<div class='giskard-chat'>" + "".join(bubbles) + "</div>"
            if bubbles
            else "<i>no messages yet</i>"
        )

    def _guard(self, action: Callable[[], Any]) -> None:
        show_errors(action, self._w["message"])

    def _send_from_box(self) -> None:
        text = self._w["input"].value
        if not text.strip() and self.job is not None and self._sent_from_box:
            return  # Enter (or leaving the box) already sent it, then the button was clicked
        self._sent_from_box = False
        self.send(text)
        self._sent_from_box = True
        self._w["input"].value = ""

    def _on_submitted(self, text: str) -> None:
        """Enter in the message box: with ``continuous_update=False`` the value arrives then."""
        if text.strip():
            self._guard(self._send_from_box)

    def _build(self) -> None:
        import ipywidgets as w

        self._w = {
            "agent": w.Dropdown(options=list(self.agents), description="agent"),
            "chat": w.HTML(),
            "input": w.Text(
                placeholder="say something, then Enter",
                continuous_update=False,  # the value arrives on Enter (or leaving the box)
                layout=w.Layout(width="60%"),
            ),
            "send": w.Button(description="Send", button_style="primary", icon="paper-plane"),
            "reset": w.Button(description="New chat", icon="refresh"),
            "name": w.Text(placeholder="test case name", description="name"),
            "save": w.Button(
                description="Save as test case", icon="save", layout=w.Layout(width="auto")
            ),
            "message": w.HTML(),
        }
        ww = self._w
        ww["save"].disabled = self.on_save is None
        self._sent_from_box = False
        ww["send"].on_click(lambda _: self._guard(self._send_from_box))
        ww["input"].observe(lambda ch: self._on_submitted(ch["new"]), names="value")
        ww["reset"].on_click(lambda _: self.reset())
        ww["save"].on_click(lambda _: self._guard(self.save))
        self.widget = w.VBox(
            [
                ww["agent"],
                ww["chat"],
                w.HBox([ww["input"], ww["send"], ww["reset"]]),
                w.HBox([ww["name"], ww["save"]]),
                ww["message"],
            ]
        )
        self.widget.add_class("giskard-playground")
        self._render()
