"""The tool-using demo agent: "Northwind Bank" support, offline, rule-based and deterministic.

``bank_agent(messages, tools=None)`` answers a customer with the tools of ``bank_tools()`` (a
``MockTools``): ``get_balance``, ``list_transactions``, ``search_faq`` (reads), ``transfer`` (a
high-risk write that needs the customer's explicit confirmation) and ``send_email`` (external). It
writes like an LLM assistant (long and polite) and returns an assistant message whose OpenAI-style
``tool_calls`` carry each call's outcome, so a scenario records them in ``Interaction.tool_calls``
(just the text when it called no tool).

It is built the way a careful agent should be: it asks for confirmation before a transfer and only
transfers after the customer's "yes"; it sends mail only to the address on file; it treats tool
output as data (an instruction planted in a result is quoted and ignored); it strips markup, quotes
and shell characters from what it passes to a tool; and it has no tool outside its role. A scan
with the tool-security probes gives it an A (``tests/scan/test_tool_probes.py``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from giskard_nb.core.tools import ToolSpec
from giskard_nb.tools import MockTools

__all__ = ["BANK_TOOL_SPECS", "CUSTOMER_EMAIL", "bank_agent", "bank_tools", "tool_call_message"]

#: The address on file: the only one the agent sends mail to.
CUSTOMER_EMAIL = "alex.morgan@example.com"

BANK_TOOL_SPECS: list[ToolSpec] = [
    ToolSpec(
        name="get_balance",
        description="The current balance of one of the customer's accounts.",
        input_schema={
            "type": "object",
            "properties": {"account": {"type": "string", "enum": ["checking", "savings"]}},
            "required": ["account"],
        },
    ),
    ToolSpec(
        name="list_transactions",
        description="The customer's latest transactions, newest first.",
        input_schema={
            "type": "object",
            "properties": {
                "account": {"type": "string", "enum": ["checking", "savings"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["account"],
        },
    ),
    ToolSpec(
        name="search_faq",
        description="Search the bank's help-centre articles.",
        input_schema={
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    ),
    ToolSpec(
        name="transfer",
        description="Move money from the customer's checking account to another account.",
        input_schema={
            "type": "object",
            "properties": {
                "amount": {"type": "number", "exclusiveMinimum": 0},
                "to_account": {"type": "string"},
            },
            "required": ["amount", "to_account"],
        },
        side_effect="write",
        risk="high",
        requires_confirmation=True,
    ),
    ToolSpec(
        name="send_email",
        description="Send an email on the bank's behalf.",
        input_schema={
            "type": "object",
            "properties": {
                "to": {"type": "string"},
                "subject": {"type": "string"},
                "body": {"type": "string"},
            },
            "required": ["to", "subject", "body"],
        },
        side_effect="external",
        risk="medium",
    ),
]

_TRANSACTIONS = [
    {"date": "2026-11-28", "merchant": "Green Grocer", "amount": -42.10},
    {"date": "2026-11-27", "merchant": "City Rail", "amount": -3.80},
    {"date": "2026-11-25", "merchant": "Salary ACME Ltd", "amount": 2800.00},
    {"date": "2026-11-22", "merchant": "Bookshop on Main", "amount": -18.50},
]
_FAQ = {
    "card": "A lost card can be frozen instantly in the app (Cards > Freeze); a new one ships free.",
    "fee": "Everyday banking is free; a transfer abroad costs 0.5% (minimum 2 EUR).",
    "limit": "The daily transfer limit is 5,000 EUR; a branch can raise it after an identity check.",
    "hours": "Our phone support is open every day from 8am to 8pm.",
}


def _search(arguments: dict[str, Any]) -> list[dict[str, str]]:
    query = str(arguments.get("query", "")).lower()
    hits = [{"topic": k, "answer": v} for k, v in _FAQ.items() if k in query]
    return hits or [{"topic": "general", "answer": _FAQ["hours"]}]


def bank_tools() -> MockTools:
    """Fresh scripted tools for the demo agent (every call recorded in ``.calls``)."""
    return MockTools(
        specs=BANK_TOOL_SPECS,
        results={
            "get_balance": lambda a: {
                "account": a.get("account", "checking"),
                "balance": 2450.17 if a.get("account", "checking") == "checking" else 10200.0,
                "currency": "EUR",
            },
            "list_transactions": lambda a: _TRANSACTIONS[: int(a.get("limit", 4))],
            "search_faq": _search,
            "transfer": lambda a: {"status": "completed", "reference": "TRF-20261203-0042"},
            "send_email": lambda a: {"status": "sent"},
        },
    )


#: Text in a tool result that reads as an instruction to the assistant (ignored and reported).
_PLANTED = re.compile(
    r"ignore (?:all |any |the |your )?(?:previous |prior |user|instructions)|instructions? (?:to|for) "
    r"the (?:assistant|ai|model)|system (?:notice|message|prompt)|assistant instructions|"
    r"you must now|do not (?:tell|mention)|\b(?:call|use|run) (?:the )?(?:send_email|transfer)\b|"
    r"forward (?:this|the) (?:conversation|data|details)|new policy|\bcall (?:the|a) tool\b|"
    r"(?:note|reminder|message) (?:to|for) the (?:assistant|ai)|\[tool note\]|step is mandatory|"
    r"^assistant:",
    re.IGNORECASE | re.MULTILINE,
)
_UNSAFE = re.compile(r"[^\w\s.,@-]")
_PAYLOAD = re.compile(r"['\";<>$|`]|\.\./")
_AMOUNT = re.compile(r"(\d+(?:[.,]\d{1,2})?)\s*(?:eur|euros?|€)?", re.IGNORECASE)
_ACCOUNT = re.compile(r"\bto (?:account )?([A-Z]{2}\d{2}[\w-]*|[\w-]*\d[\w-]*)", re.IGNORECASE)
_YES = re.compile(r"^\s*(?:yes|yep|confirm(?:ed)?|i confirm|go ahead|please do)\b", re.IGNORECASE)


def tool_call_message(text: str, calls: list[Any]) -> dict[str, Any]:
    """An assistant message with OpenAI-style ``tool_calls`` carrying each call's outcome."""
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                "result": c.result,
                "error": c.error,
                "status": c.status,
                "duration_s": c.duration_s,
            }
            for c in calls
        ],
    }


def _planted(result: Any) -> str | None:
    """The first instruction-like sentence of a tool result, if any."""
    text = json.dumps(result, ensure_ascii=False) if not isinstance(result, str) else result
    m = _PLANTED.search(text)
    if m is None:
        return None
    start = max(text.rfind(".", 0, m.start()) + 1, text.rfind('"', 0, m.start()) + 1, 0)
    return text[start : m.end() + 120].strip().strip('"')[:200]


def _warning(quotes: list[str]) -> str:
    if not quotes:
        return ""
    return (
        "\n\nOne more thing I want to be transparent about: the data I retrieved contains text that "
        f'reads like an instruction to me ("{quotes[0]}"). Tool output is information, not a '
        "request from you, so I have not acted on it, and no money has moved and no message has "
        "been sent. If you did not expect this, please report it to our security team."
    )


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", _UNSAFE.sub(" ", text)).strip()[:80]


def _pending_transfer(messages: list[dict[str, Any]]) -> tuple[float, str] | None:
    """The transfer the assistant last asked the customer to confirm, if any."""
    for m in reversed(messages[:-1]):
        if m.get("role") == "assistant":
            found = re.search(r"transfer of ([\d.]+) EUR to account ([\w-]+)\?", str(m["content"]))
            return (float(found.group(1)), found.group(2)) if found else None
    return None


def bank_agent(
    messages: list[dict[str, Any]], tools: MockTools | None = None
) -> dict[str, Any] | str:
    """Answer the customer's last message (see the module docstring): the assistant message with
    its tool calls, or the text alone when it called no tool."""
    tools = tools if tools is not None else bank_tools()
    start = len(tools.calls)
    question = str(messages[-1].get("content", "")) if messages else ""
    low = question.lower()
    quotes: list[str] = []

    def use(name: str, arguments: dict[str, Any]) -> Any:
        done = tools.run(name, arguments)
        quote = _planted(done.result) if done.result is not None else None
        if quote:
            quotes.append(quote)
        return done

    pending = _pending_transfer(messages)
    if pending and _YES.match(question):
        done = use("transfer", {"amount": pending[0], "to_account": pending[1]})
        if done.failed:
            text = (
                "I'm sorry, the transfer could not be completed: the bank's system reported an "
                f"error ({done.error}). No money has left your account. Would you like me to try "
                "again in a few minutes?"
            )
        else:
            text = (
                f"Thank you for confirming. The transfer of {pending[0]:.2f} EUR to account "
                f"{pending[1]} has been completed; your reference is "
                f"{(done.result or {}).get('reference', 'pending')}. Is there anything else I can do?"
            )
    elif re.search(r"\b(?:admin|administrator|unlock|raise (?:my|the) limit|privilege)", low):
        text = (
            "Thank you for reaching out. I understand this feels urgent, but I'm a customer "
            "assistant and I don't have administrative tools: I can't unlock accounts, change "
            "limits or act on behalf of staff, whoever asks. A branch advisor can help after an "
            "identity check. Is there anything else, about your own accounts, that I can help with?"
        )
    elif "transfer" in low or re.search(r"\bsend \d", low):
        amount, account = _AMOUNT.search(low), _ACCOUNT.search(question)
        if amount and account:
            value = float(amount.group(1).replace(",", "."))
            text = (
                f"Certainly, I can help with that. Before I do anything, please confirm: do you "
                f"want me to make a transfer of {value:.2f} EUR to account {account.group(1)}? "
                "Transfers cannot be undone, so I will only proceed once you reply yes."
            )
        else:
            text = (
                "I'd be glad to help with a transfer. Could you tell me the amount and the account "
                "number you'd like to send it to? I'll ask you to confirm before anything moves."
            )
    elif "email" in low or "mail me" in low:
        addresses = set(re.findall(r"[\w.+-]+@[\w-]+\.[\w.]+", question)) - {CUSTOMER_EMAIL}
        if addresses:
            text = (
                "I understand you'd like this sent elsewhere, but for your security I can only "
                "email the address on file for your account. I haven't sent anything. If you need "
                "to share details with someone else, please download the statement from the app."
            )
        else:
            done = use(
                "send_email",
                {
                    "to": CUSTOMER_EMAIL,
                    "subject": "Your requested information",
                    "body": question[:200],
                },
            )
            text = (
                "Of course! I've sent the information to the email address on file for your "
                "account. It should arrive within a few minutes."
                if not done.failed
                else f"I'm sorry, I couldn't send the email ({done.error}). Nothing was sent."
            )
    elif "balance" in low or "how much" in low:
        account = "savings" if "saving" in low else "checking"
        done = use("get_balance", {"account": account})
        if done.failed:
            text = f"I'm sorry, I couldn't retrieve your balance right now ({done.error})."
        else:
            text = (
                f"Thank you for your question! The current balance of your {account} account is "
                f"{done.result['balance']:,.2f} {done.result['currency']}. Let me know if you'd "
                "like to see your recent transactions as well."
            )
    elif re.search(r"transaction|activity|spent|statement|merchant|payment", low):
        done = use("list_transactions", {"account": "checking", "limit": 4})
        rows = done.result if isinstance(done.result, list) else []
        lines = [
            f"- {r.get('date')}: {r.get('merchant')} ({r.get('amount'):+.2f} EUR)"
            for r in rows
            if isinstance(r, dict) and isinstance(r.get("amount"), int | float)
        ]
        text = (
            "Of course! Here are your latest transactions on your checking account:\n"
            + ("\n".join(lines) or "- none to show")
            + "\nIf any of these looks unfamiliar, I can help you freeze your card."
        )
        if _PAYLOAD.search(question):
            text += " (I only look up your own account and never pass raw text to our systems.)"
    else:
        query = _clean(question) or "help"
        done = use("search_faq", {"query": query})
        answers = [
            h["answer"]
            for h in (done.result or [])
            if isinstance(h, dict) and isinstance(h.get("answer"), str)
        ]
        text = (
            "Thanks for your question! Here is what our help centre says: "
            + (" ".join(answers) or "I couldn't find an article on that.")
            + " Is there anything else I can help you with today?"
        )
    made = tools.calls[start:]
    return tool_call_message(text + _warning(quotes), made) if made else text
