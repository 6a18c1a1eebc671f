"""The rules of the static tool-definition scan (``giskard_nb.tools.static_scan``): hidden Unicode,
instruction-like text in six languages (EN/FR/ES/DE/IT/PT), and name shadowing across servers.

Each rule takes a ``ToolSpec`` (and, for the text rules, where the text is and the text) and returns
``ToolFinding`` objects. Text is normalised before matching (NFKC, invisible characters removed, tag
characters decoded, casefolded), so hiding a phrase with zero-width characters does not hide it.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import combinations
from typing import TYPE_CHECKING

from giskard_nb.tools.static_scan import MAX_EVIDENCE, ToolFinding

if TYPE_CHECKING:
    from giskard_nb.core.tools import ToolSpec

__all__ = ["INSTRUCTION_PATTERNS", "hidden_unicode", "instructions", "shadowing", "skeleton"]

#: The longest text read for instructions (a description longer than this is itself suspect).
MAX_TEXT = 20_000

_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u180e\u00ad\u034f\u2061-\u2064]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_INVISIBLE = re.compile(f"{_TAGS.pattern}|{_ZERO_WIDTH.pattern}|{_BIDI.pattern}")

_HIDDEN_FIX = (
    "remove the invisible characters from the definition (a model reads them, a reviewer does not); "
    "do not connect an agent to a server that ships them"
)
_INSTRUCTION_FIX = (
    "a tool description should say what the tool does, not instruct the model: remove the text or "
    "do not connect this server"
)


def _escaped(text: str) -> str:
    """``text`` with invisible and control characters shown as ``\\u….``, cut to the evidence size."""
    out = []
    for ch in text[: MAX_EVIDENCE + 1]:
        if _INVISIBLE.match(ch) or (unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\n\t"):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    joined = "".join(out)
    return joined if len(joined) <= MAX_EVIDENCE else joined[:MAX_EVIDENCE] + "…"


def _decoded_tags(text: str) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in "".join(_TAGS.findall(text)) if ord(c) > 0xE0000)


def hidden_unicode(spec: ToolSpec, location: str, text: str) -> list[ToolFinding]:
    """Tag characters, bidirectional overrides and zero-width characters in ``text``."""
    if text.isascii():
        return []
    findings = []
    if _TAGS.search(text):
        hidden = _decoded_tags(text)
        evidence = f"hidden ASCII in tag characters: {hidden!r}"[:MAX_EVIDENCE]
        findings.append(
            ToolFinding(
                "high", "hidden_unicode", spec.name, spec.server, evidence, _HIDDEN_FIX, location
            )
        )
    if _BIDI.search(text):
        evidence = f"bidirectional override characters: {_escaped(text)}"
        findings.append(
            ToolFinding(
                "high",
                "hidden_unicode",
                spec.name,
                spec.server,
                evidence[:MAX_EVIDENCE],
                _HIDDEN_FIX,
                location,
            )
        )
    if _ZERO_WIDTH.search(text):
        evidence = f"zero-width characters: {_escaped(text)}"
        findings.append(
            ToolFinding(
                "medium",
                "hidden_unicode",
                spec.name,
                spec.server,
                evidence[:MAX_EVIDENCE],
                _HIDDEN_FIX,
                location,
            )
        )
    return findings


def _normalized(text: str) -> str:
    """NFKC, tag characters decoded, other invisible characters removed, whitespace collapsed,
    casefolded, curly apostrophes straightened."""
    if _TAGS.search(text):
        text = f"{_TAGS.sub('', text)} {_decoded_tags(text)}"
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text).replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"\s+", " ", text).casefold().strip()


_ALL = r"(?:all |any |every |the |your |my |tous |toutes |les |vos |tes |todas |todos |las |los |"
_ALL += r"tus |sus |alle |die |deine |ihre |tutte |tutti |le |gli |tue |as |os |suas |seus )*"
_PREV = (
    r"(?:previous|prior|above|earlier|preceding|précédentes?|antérieures?|anteriores?|previas?|"
    r"vorherigen?|bisherigen?|obigen?|vorigen?|precedenti|anteriori|prévias?)"
)
_INSTR = r"(?:instructions?|rules?|consignes?|instrucciones|reglas|anweisungen|regeln|istruzioni|"
_INSTR += r"regole|instruções|instrucoes|regras)"
_USER = r"(?:the user|l'utilisateur|al usuario|el usuario|dem (?:benutzer|nutzer)|all'utente|"
_USER += r"l'utente|ao usuário|ao utilizador|o usuário)"
_SEND = (
    r"(?:send|post|upload|forward|exfiltrate|transmit|leak|envoy\w*+|transmet\w*+|env[ií][aeo]\w*+|"
)
_SEND += r"mand[aeo]\w*+|send\w*+|schick\w*+|übermittel\w*+|invi[aoe]\w*+|trasmett\w*+)"
#: What is sent: the conversation, the user's data, files, keys… (EN, FR, ES, DE, IT, PT).
_DATA = (
    r"(?:everything|conversation|chat|history|messages?|data|contents?|files?|keys?|credentials?|"
    r"tokens?|secrets?|passwords?|context|emails?|notes|tout|données|historique|fichiers?|clés?|"
    r"mots de passe|todo|datos|historial|conversación|mensajes|archivos?|claves?|contraseñas?|"
    r"alles|daten|verlauf|nachrichten|dateien|schlüssel|passwörter|tutto|dati|cronologia|"
    r"conversazione|messaggi|chiavi|tudo|dados|histórico|conversa|mensagens|arquivos?|chaves?|"
    r"senhas?)"
)

#: (name, severity, compiled pattern) — matched against normalised text.
INSTRUCTION_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (name, severity, re.compile(pattern))
    for name, severity, pattern in (
        # override earlier instructions (EN, FR, ES, DE, IT, PT)
        ("override", "high", rf"\b(?:ignore|disregard|forget)\w*+ {_ALL}{_PREV} {_INSTR}"),
        ("override", "high", rf"\bignor\w*+ {_ALL}{_INSTR} {_PREV}"),
        (
            "override",
            "high",
            rf"\b(?:oublie\w*+|olvida\w*+|vergiss\w*+|dimentica\w*+|esque[cç]a\w*+) "
            rf"{_ALL}{_INSTR}",
        ),
        ("override", "high", rf"\bignorier\w*+ {_ALL}{_PREV} {_INSTR}"),
        # hide something from the user
        (
            "secrecy",
            "high",
            r"\b(?:do not|don't|never) (?:tell|mention|inform|reveal|show)\w*+"
            r"(?: (?:this|it|that))? (?:to )?(?:the )?user",
        ),
        ("secrecy", "high", r"\bwithout (?:telling|informing|notifying|asking) the user"),
        (
            "secrecy",
            "high",
            rf"\bne (?:le |lui |l'|rien )?(?:dites|dis|mentionnez|informez|"
            rf"révélez)\w*+ (?:pas|rien|jamais)\b.{{0,30}}{_USER}",
        ),
        ("secrecy", "high", rf"\bsans (?:le )?(?:dire|informer|prévenir)\w*+ (?:à )?{_USER}"),
        (
            "secrecy",
            "high",
            rf"\bno (?:se lo |le |lo )?(?:digas|diga|menciones|informes|"
            rf"cuentes|reveles)\w*+.{{0,20}}{_USER}",
        ),
        ("secrecy", "high", rf"\bsin (?:decirle|decir|informar|avisar)\w*+.{{0,12}}{_USER}"),
        (
            "secrecy",
            "high",
            rf"\b(?:sag|sage|sagen sie|erzähl|verrat)\w*+.{{0,20}}{_USER}.{{0,8}}"
            r"\bnichts?\b",
        ),
        ("secrecy", "high", rf"\bohne (?:es )?{_USER} zu (?:sagen|informieren)"),
        (
            "secrecy",
            "high",
            rf"\bnon (?:dire|dirlo|menzionare|informare|rivelare)\w*+.{{0,12}}"
            rf"{_USER}",
        ),
        ("secrecy", "high", rf"\bsenza (?:dirlo|dire|informare|avvisare)\w*+.{{0,12}}{_USER}"),
        ("secrecy", "high", rf"\bnão (?:diga|conte|mencione|informe|revele)\w*+.{{0,12}}{_USER}"),
        ("secrecy", "high", rf"\bsem (?:dizer|contar|informar|avisar)\w*+.{{0,12}}{_USER}"),
        # send data somewhere
        (
            "exfiltration",
            "high",
            rf"\b{_SEND}\b.{{0,60}}\b{_DATA}\b.{{0,100}}(?:https?://|webhook)",
        ),
        ("exfiltration", "high", r"!\[[^\]]*\]\(https?://[^)]*[?&][^)]*=\s*\{"),
        ("credentials", "high", r"(?:~/\.ssh|\bid_rsa\b|\.aws/credentials|/etc/(?:passwd|shadow))"),
        ("credentials", "medium", r"(?:(?<![\w.])\.env\b|\bmcp\.json\b|\bcursor/mcp)"),
        # markers that shout at the model
        ("marker", "medium", r"<\s*(?:important|system|instructions?|secret|hidden)\s*>"),
        (
            "marker",
            "medium",
            r"\b(?:before using this tool|avant d'utiliser cet outil|antes de "
            r"usar esta herramienta|bevor du dieses tool|prima di usare questo "
            r"strumento|antes de usar esta ferramenta)\b.{0,60}\b(?:read|call|"
            r"lis|lire|lee|leer|lies|lesen|leggi|leia|ler)",
        ),
    )
)

_KIND = {
    "override": "asks the model to drop its instructions",
    "secrecy": "asks the model to hide something from the user",
    "exfiltration": "asks for data to be sent to an address",
    "credentials": "names a credential file or key",
    "marker": "speaks to the model, not the reader",
}


def instructions(spec: ToolSpec, location: str, text: str) -> list[ToolFinding]:
    """Instruction-like text in ``text`` (one finding per kind of instruction; the first
    ``MAX_TEXT`` characters are read)."""
    plain = _normalized(text[:MAX_TEXT])
    findings, seen = [], set()
    for name, severity, pattern in INSTRUCTION_PATTERNS:
        match = pattern.search(plain)
        if match is None or name in seen:
            continue
        seen.add(name)
        start = max(match.start() - 40, 0)
        evidence = f"{_KIND[name]}: …{_escaped(plain[start : match.end() + 40])}…"
        findings.append(
            ToolFinding(
                severity,
                "instruction",
                spec.name,
                spec.server,  # type: ignore[arg-type]
                evidence[:MAX_EVIDENCE],
                _INSTRUCTION_FIX,
                location,
            )
        )
    return findings


# Latin look-alikes: Cyrillic and Greek letters and digits read as letters.
_CONFUSABLE = str.maketrans(
    "аеорсухіјѕԁɡіΑΒΕΖΗΙΚΜΝΟΡΤΥΧαεικνορτυχ01|",
    "aeopcyxijsdgiabezhikmnoptyxaeiknoptuxoll",
)


def skeleton(name: str) -> str:
    """A name reduced to what a reader sees: NFKC, invisible characters and separators removed,
    casefolded, Cyrillic/Greek look-alikes and ``0``/``1`` mapped to Latin letters."""
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", name)).casefold()
    return re.sub(r"[\s_\-.:/]+", "", text.translate(_CONFUSABLE))


def shadowing(tools: list[ToolSpec]) -> list[ToolFinding]:
    """The same or a confusable tool name on two servers, and a description that names another
    server's tool (an instruction to change how that tool is used)."""
    findings = []
    by_skeleton: dict[str, list[ToolSpec]] = {}
    for spec in tools:
        by_skeleton.setdefault(skeleton(spec.name), []).append(spec)
    for group in by_skeleton.values():
        for a, b in combinations(group, 2):
            if a.server == b.server and a.name == b.name:
                continue
            same = a.name == b.name
            for this, other in ((a, b), (b, a)):
                evidence = (
                    f"{'the same name' if same else 'a confusable name'} as "
                    f"{other.server or '(no server)'}/{_escaped(other.name)}: "
                    f"{_escaped(this.name)!s}"
                )
                findings.append(
                    ToolFinding(
                        "medium" if same else "high",
                        "shadowing",
                        this.name,
                        this.server,
                        evidence[:MAX_EVIDENCE],
                        "give each server a namespace (call tools as server/tool) or rename one; a "
                        "confusable name on an untrusted server is an attack: disconnect it",
                        "name",
                    )
                )
    findings += _cross_references(tools)
    return findings


def _cross_references(tools: list[ToolSpec]) -> list[ToolFinding]:
    servers = {s.server for s in tools}
    if len(servers) < 2:
        return []
    by_name: dict[str, list[ToolSpec]] = {}
    for spec in tools:
        if len(spec.name) >= 4:
            by_name.setdefault(spec.name.casefold(), []).append(spec)
    findings = []
    for spec in tools:
        words = set(_WORDS.findall(_normalized(spec.description)))
        for word in words & by_name.keys():
            for other in by_name[word]:
                if other.server == spec.server:
                    continue
                findings.append(
                    ToolFinding(
                        "medium",
                        "shadowing",
                        spec.name,
                        spec.server,
                        f"its description names {other.server or '(no server)'}/{other.name}, a "
                        "tool of another server"[:MAX_EVIDENCE],
                        "a tool should not tell the model how to use another server's tools: "
                        "review the description or disconnect the server",
                        "description",
                    )
                )
    return findings


#: Name-like words of a description (tool names are words with _ - . / inside).
_WORDS = re.compile(r"[\w][\w.\-/]*[\w]|[\w]")
