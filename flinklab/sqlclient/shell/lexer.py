"""Syntax highlighting of Flink SQL: a Pygments lexer on top of Pygments' SQL lexer, and the color schemas by
the names Flink's `sql-client.display.color-schema` takes.

Pygments' SQL lexer knows standard SQL; Flink adds its own words (WATERMARK, TUMBLE, HOP, CUMULATE, MATCH_RECOGNIZE,
STATEMENT SET, ...), `/*+ ... */` hints and backquoted identifiers, which are added here. The schemas' colors follow
the spirit of Flink's SyntaxHighlightStyle (keywords, comments, hints, strings, identifiers, numbers), mapped onto
Pygments token classes so prompt_toolkit can draw them.
"""

from __future__ import annotations

from pygments.lexer import inherit, words
from pygments.lexers.sql import SqlLexer
from pygments.token import Comment, Keyword, Name

#: Flink SQL words Pygments' SQL lexer does not mark as keywords.
FLINK_KEYWORDS = (
    "WATERMARK", "TUMBLE", "HOP", "CUMULATE", "SESSION", "DESCRIPTOR", "MATCH_RECOGNIZE", "MEASURES", "PATTERN",
    "DEFINE", "WITHIN", "LATERAL", "UNNEST", "TEMPORARY", "CATALOG", "CATALOGS", "DATABASES", "FUNCTIONS",
    "MODULES", "JARS", "JOBS", "TABLES", "VIEWS", "COLUMNS", "STATEMENT", "PLAN", "COMPILE", "EXECUTE", "ENFORCED",
    "METADATA", "VIRTUAL", "PARTITIONED", "DISTRIBUTED", "BUCKETS", "OVERWRITE", "IF", "LOAD", "UNLOAD", "MODULE",
    "JAR", "PROCTIME", "ROWTIME", "SYSTEM_TIME", "OFFSET", "FETCH", "QUALIFY", "MATERIALIZED", "FRESHNESS",
    "REFRESH_MODE", "STOP", "JOB", "SAVEPOINT", "RESET", "SET", "HELP", "QUIT", "EXIT", "CLEAR", "BEGIN", "END",
)


class FlinkSqlLexer(SqlLexer):
    """Pygments' SQL lexer plus Flink's keywords, hints (`/*+ */`) and `backquoted` identifiers."""

    name = "Flink SQL"
    aliases = ["flinksql"]
    filenames: list[str] = []

    tokens = {
        "root": [
            (r"/\*\+", Comment.Preproc, "hint"),
            (r"`(``|[^`])*`", Name.Variable),
            (words(FLINK_KEYWORDS, suffix=r"\b"), Keyword),
            inherit,
        ],
        "hint": [
            (r"\*/", Comment.Preproc, "#pop"),
            (r"[^*]+", Comment.Preproc),
            (r"\*", Comment.Preproc),
        ],
    }


#: token class -> style, per schema (Flink's names; `default` highlights nothing, as Flink's).
_ROLES = ("keyword", "comment", "hint", "string", "identifier", "number")
COLOR_SCHEMAS: dict[str, dict[str, str]] = {
    "default": {},
    "dark": dict(zip(_ROLES, ("bold #5f87ff", "italic #8a8a8a", "bold #af87ff", "#5fd75f", "#5fd7d7", "#ffaf5f"))),
    "light": dict(zip(_ROLES, ("bold #0000d7", "italic #767676", "bold #870087", "#008700", "#008787", "#af5f00"))),
    "chester": dict(zip(_ROLES, ("bold #00afff", "italic #808080", "bold #87afff", "#afd700", "#d7af00", "#d75f00"))),
    "dracula": dict(zip(_ROLES, ("bold #ff79c6", "italic #6272a4", "bold #bd93f9", "#f1fa8c", "#8be9fd", "#bd93f9"))),
    "solarized": dict(zip(_ROLES, ("bold #859900", "italic #586e75", "bold #6c71c4", "#2aa198", "#268bd2",
                                   "#d33682"))),
    "vs2010": dict(zip(_ROLES, ("bold #0000ff", "italic #008000", "bold #808080", "#a31515", "#2b91af", "#000000"))),
    "obsidian": dict(zip(_ROLES, ("bold #93c763", "italic #66747b", "bold #a082bd", "#ec7600", "#678cb1",
                                  "#ffcd22"))),
    "geshi": dict(zip(_ROLES, ("bold #993333", "italic #808080", "bold #339933", "#ff0000", "#000099", "#cc66cc"))),
}
_TOKEN_CLASSES = {
    "keyword": ["pygments.keyword"],
    "comment": ["pygments.comment", "pygments.comment.single", "pygments.comment.multiline"],
    "hint": ["pygments.comment.preproc"],
    "string": ["pygments.literal.string", "pygments.literal.string.single", "pygments.literal.string.symbol"],
    "identifier": ["pygments.name.variable"],
    "number": ["pygments.literal.number", "pygments.literal.number.integer", "pygments.literal.number.float"],
}


def style_rules(schema: str) -> dict[str, str]:
    """prompt_toolkit style rules for `schema` (case-insensitive; an unknown name highlights nothing, as Flink
    falls back to its default)."""
    roles = COLOR_SCHEMAS.get(schema.strip().lower(), {})
    return {cls: style for role, style in roles.items() for cls in _TOKEN_CLASSES[role]}
