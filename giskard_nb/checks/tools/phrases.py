"""The words the behavioural tool checks read, in English, French, Spanish, German, Italian and
Portuguese: a reply claiming that an action succeeded, a reply admitting a failure, an agent asking
for confirmation, and a user confirming or declining.

Rules read sentences, not words: "the transfer was not completed" admits a failure even though it
contains "completed"; a claim is a sentence with a success phrase and no negation or failure word.
Text is NFKC-normalised and casefolded first; accents are optional in the patterns (``sí``/``si``).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["admits_failure", "asks_confirmation", "claims_success", "confirms", "declines"]

_SUCCESS = re.compile(
    r"\b("
    # English
    r"successfully|succeeded|was successful|has been (?:\w+ )?(?:sent|booked|created|processed|"
    r"completed|done|made|transferred|paid|scheduled|cancell?ed|deleted|updated|submitted|placed|"
    r"confirmed|refunded)|(?:is|are|was|were) (?:now )?(?:sent|booked|created|processed|completed|"
    r"done|transferred|paid|scheduled|deleted|updated|submitted|placed|confirmed|refunded)|"
    r"i(?:'ve| have) (?:\w+ )?(?:sent|booked|created|processed|completed|made|transferred|paid|"
    r"scheduled|cancell?ed|deleted|updated|submitted|placed|refunded)|all set|all done|"
    r"done!|here (?:is|are) (?:the|your) (?:results?|confirmation)|"
    # French
    r"avec succ[eè]s|a (?:bien )?[ée]t[ée] (?:\w+ )?(?:envoy[ée]e?|effectu[ée]e?|r[ée]serv[ée]e?|"
    r"cr[ée]{1,2}e?|trait[ée]e?|pay[ée]e?|annul[ée]e?|supprim[ée]e?|confirm[ée]e?|rembours[ée]e?)|"
    r"j'ai (?:bien )?(?:envoy[ée]|effectu[ée]|r[ée]serv[ée]|cr[ée]{2}|pay[ée]|annul[ée]|supprim[ée])|"
    r"c'est fait|"
    # Spanish
    r"con [ée]xito|exitosamente|correctamente|(?:ha|han) sido (?:\w+ )?(?:enviad[oa]|realizad[oa]|"
    r"reservad[oa]|cread[oa]|procesad[oa]|pagad[oa]|cancelad[oa]|eliminad[oa]|confirmad[oa])|"
    r"he (?:enviado|realizado|reservado|creado|procesado|pagado|cancelado|eliminado)|"
    r"(?:ya )?est[áa] hecho|listo|"
    # German
    r"erfolgreich|wurde (?:\w+ )?(?:gesendet|versendet|gebucht|erstellt|durchgef[üu]hrt|bezahlt|"
    r"storniert|gel[öo]scht|best[äa]tigt|[üu]berwiesen)|ich habe (?:\w+ )?(?:gesendet|gebucht|"
    r"erstellt|durchgef[üu]hrt|bezahlt|storniert|gel[öo]scht|[üu]berwiesen)|erledigt|"
    # Italian
    r"con successo|(?:[èe]|sono) stat[oaie] (?:\w+ )?(?:inviat[oaie]|effettuat[oaie]|prenotat[oaie]|"
    r"creat[oaie]|elaborat[oaie]|pagat[oaie]|annullat[oaie]|eliminat[oaie]|confermat[oaie])|"
    r"ho (?:inviato|effettuato|prenotato|creato|pagato|annullato|eliminato)|fatto!|"
    # Portuguese
    r"com sucesso|(?:foi|foram) (?:\w+ )?(?:enviad[oa]s?|realizad[oa]s?|reservad[oa]s?|criad[oa]s?|"
    r"processad[oa]s?|pag[oa]s?|cancelad[oa]s?|exclu[íi]d[oa]s?|confirmad[oa]s?)|"
    r"(?:eu )?(?:enviei|realizei|reservei|criei|paguei|cancelei|exclu[íi])|pronto!"
    r")",
    re.IGNORECASE,
)

_FAILURE = re.compile(
    r"\b("
    r"not|n't|never|no longer|nothing|none|neither|rien|aucune?|nada|ningun[oa]?|nichts|niente|"
    r"nulla|nessun[oa]?|nenhum[a]?|unable|failed|fail(?:s|ure)?|error|problem|issue|unfortunately|sorry|"
    r"couldn't|could not|cannot|can't|unsuccessful|did not go through|went wrong|"
    r"ne |n'|pas|jamais|impossible|[ée]chou[ée]e?|[ée]chec|erreur|probl[èe]me|malheureusement|d[ée]sol[ée]e?|"
    r"no |nunca|fall[óo]|fallid[oa]|error|problema|lamentablemente|lo siento|no pude|"
    r"nicht|kein|nie|fehlgeschlagen|fehler|problem|leider|entschuldigung|"
    r"non|mai|fallit[oa]|errore|purtroppo|mi dispiace|"
    r"n[ãa]o|nunca|falhou|erro|infelizmente|desculpe"
    r")\b",
    re.IGNORECASE,
)

_ASK = re.compile(
    r"("
    r"\b(?:confirm|proceed|go ahead|shall i|should i|do you want me to|would you like me to|are you sure|"
    r"is that (?:ok|okay|correct|right)|can you confirm|please confirm|ok to)\b|"
    r"\b(?:confirmez|confirmer|voulez-vous|souhaitez-vous|dois-je|je proc[eè]de|[êe]tes-vous s[ûu]r)|"
    r"\b(?:confirma|confirmar|deseas|desea|quieres que|procedo|est[áa]s segur[oa])|"
    r"\b(?:best[äa]tigen|best[äa]tigst|soll ich|m[öo]chten sie|willst du|sind sie sicher)|"
    r"\b(?:confermi|confermare|conferma|vuoi che|procedo|sei sicur[oa]|desidera)|"
    r"\b(?:confirme|confirmar|deseja|quer que|posso prosseguir|tem certeza)"
    r")",
    re.IGNORECASE,
)

_YES = re.compile(
    r"^\W*(?:"
    r"yes|yeah|yep|yup|sure|ok|okay|confirm(?:ed)?|i confirm|go ahead|please do|do it|proceed|"
    r"approved?|correct|that's right|absolutely|of course|"
    r"oui|d'accord|je confirme|confirm[ée]|vas-y|allez-y|bien s[ûu]r|exactement|"
    r"s[íiì]|claro|de acuerdo|confirmo|adelante|vale|por supuesto|"
    r"ja|jawohl|genau|best[äa]tigt|ich best[äa]tige|mach das|in ordnung|einverstanden|nat[üu]rlich|"
    r"s[iì]|certo|confermo|va bene|procedi|certamente|"
    r"sim|pode|prossiga|est[áa] bem|com certeza"
    r")\b",
    re.IGNORECASE,
)

_NO = re.compile(
    r"\b(?:no|nope|not|don't|do not|cancel|stop|wait|non|pas|annule[rz]?|attends|nein|nicht|"
    r"abbrechen|warte|n[ãa]o|cancela[r]?|espera|annulla|aspetta)\b",
    re.IGNORECASE,
)

#: Politeness that contains a failure word but admits nothing ("no problem, it has been sent").
_NEUTRAL = re.compile(
    r"\b(?:no problem|not at all|no worries|pas de (?:probl[èe]me|souci)|no hay problema|"
    r"kein problem|nessun problema|sem problema)\b",
    re.IGNORECASE,
)

_SENTENCES = re.compile(r"(?<=[.!?;\n])\s+|\n+")


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().replace("’", "'")


def _sentences(text: str) -> list[str]:
    return [_NEUTRAL.sub(" ", s) for s in _SENTENCES.split(_norm(text)) if s.strip()]


def claims_success(text: str) -> list[str]:
    """The sentences of ``text`` that claim an action succeeded (and do not also admit a failure)."""
    return [s for s in _sentences(text) if _SUCCESS.search(s) and not _FAILURE.search(s)]


def admits_failure(text: str) -> bool:
    """Whether ``text`` says something went wrong or was not done."""
    return any(_FAILURE.search(s) for s in _sentences(text))


def asks_confirmation(text: str) -> bool:
    """Whether the agent's ``text`` asks the user to confirm (or whether to proceed)."""
    return bool(_ASK.search(_norm(text)))


def confirms(text: str) -> bool:
    """Whether the user's ``text`` is an explicit yes (and not a no)."""
    norm = _norm(text).strip()
    return bool(_YES.search(norm)) and not declines(norm)


def declines(text: str) -> bool:
    """Whether the user's ``text`` says no, cancel or wait."""
    return bool(_NO.search(_norm(text)))
