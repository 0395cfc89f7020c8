"""Tab completion from the gateway (Flink's complete-statement endpoint), turned into prompt_toolkit completions.

The gateway answers with candidates for the whole buffer at the cursor: Flink's parser hints (keywords, qualified
table names such as `default_catalog.default_database.orders`) and, with flinklab's gateway, the session's tables,
columns, functions and `SET` keys with their values. Each candidate replaces the word before the cursor; a
qualified name is offered by its last part when that is what the learner is typing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

#: What a candidate replaces: the identifier before the cursor (dots and backquotes kept), or `'key` after SET.
_WORD = re.compile(r"[A-Za-z0-9_$`.]*$")
_SET_WORD = re.compile(r"(?:SET|RESET)\s+('?[^'=\s]*)$", re.IGNORECASE)
#: `FROM t a`, `JOIN t AS a`, `, t a`: a relation and its alias.
_ALIASED = re.compile(r"(?:\bFROM|\bJOIN|,)\s+(`[^`]+`|[A-Za-z_][\w.]*)\s+(?:AS\s+)?([A-Za-z_]\w*)", re.IGNORECASE)
#: words that follow a relation but are no alias
_NOT_ALIAS = {"where", "join", "on", "group", "order", "left", "right", "inner", "full", "cross", "natural", "limit",
              "union", "intersect", "except", "having", "window", "for", "as", "using", "lateral", "tablesample",
              "match_recognize", "minus", "outer", "with", "values", "select", "from"}

Ask = Callable[[str, int], list[str]]


def replaced_word(before: str) -> str:
    """The text before the cursor a candidate replaces."""
    head = _SET_WORD.search(before)
    if head and before[: head.start()].strip() == "":
        return head.group(1)
    match = _WORD.search(before)
    return match.group() if match else ""


def aliases(statement: str) -> dict[str, str]:
    """alias (lower case) -> the relation it names, from the statement's FROM and JOIN clauses."""
    found: dict[str, str] = {}
    for match in _ALIASED.finditer(statement):
        relation, alias = match.group(1), match.group(2)
        if alias.lower() not in _NOT_ALIAS and relation.lower() not in _NOT_ALIAS:
            found[alias.lower()] = relation
    return found


def completions(before: str, candidates: Iterable[str]) -> list[tuple[str, int, str]]:
    """(text, start position, display meta) for each candidate that fits the word before the cursor; a candidate
    that does not start with the word but whose last dotted part does is offered as that part; after `owner.`, a
    plain name that starts with what follows the dot is offered as `owner.name`."""
    word = replaced_word(before)
    low = word.lower()
    owner, dot, partial = word.rpartition(".")
    out: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    for candidate in candidates:
        text, meta = candidate, ""
        if not candidate.lower().startswith(low):
            last = candidate.rsplit(".", 1)[-1]
            if not dot and last.lower().startswith(low):
                text, meta = last, candidate
            elif dot and "." not in candidate and candidate.lower().startswith(partial.lower()):
                text = f"{owner}.{candidate}"
            else:
                continue
        if text in seen or text == word:
            continue
        seen.add(text)
        out.append((text, -len(word), meta))
    return out


class GatewayCompleter(Completer):
    """Completes on Tab by asking `ask(statement, position)` (the gateway); no candidates when it fails."""

    def __init__(self, ask: Ask):
        self.ask = ask

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        if not complete_event.completion_requested:
            return  # Tab only: no round trip on every keystroke
        text = document.text
        position = document.cursor_position
        try:
            candidates = self._candidates(text, position)
        except Exception:  # noqa: BLE001 - a completion that fails completes nothing
            return
        for value, start, meta in completions(text[:position], candidates):
            yield Completion(value, start_position=start, display_meta=meta or None)

    def _candidates(self, text: str, position: int) -> list[str]:
        """The gateway's candidates; after `alias.`, those for `table.` in its place, given back as `alias.`."""
        word = replaced_word(text[:position])
        owner, dot, partial = word.rpartition(".")
        relation = aliases(text).get(owner.lower()) if dot and "." not in owner else None
        if relation is None:
            return self.ask(text, position)
        start = position - len(word)
        asked = f"{text[:start]}{relation}.{partial}{text[position:]}"
        got = self.ask(asked, start + len(relation) + 1 + len(partial))
        prefix = relation.lower() + "."
        return [f"{owner}.{c[len(prefix):]}" if c.lower().startswith(prefix) else c for c in got]
