"""Errors whose cause is the tables' definitions, not the step's SQL: a step that fails because ddl.sql declares no
WATERMARK (no time attribute for a window or a temporal join), no PRIMARY KEY on a versioned table, not the table at
all, or a CSV path that does not exist. The hint then names ddl.sql and what it lacks, since every step runs with it
(`-i ddl.sql`) and fixing the step file would not help.

What ddl.sql lacks is read from the learner's ddl.sql beside the lab's own (the reference, when the lab gives it):
a table the lab's ddl declares with a WATERMARK, a PRIMARY KEY, or at all. Without the reference, only what the
learner's ddl.sql and the step's SQL show (the DESCRIPTOR or AS OF column of a table without a watermark). An error
whose cause ddl.sql does not show (the watermark is there, the step windows on another column) gets no hint here:
the step's own hints decide. Knows no lab.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from flinklab.flink.sql_split import code_only
from flinklab.grading.ddl import TableDef, tables_of

#: phrases of Flink's errors for a column that is not a time attribute (window TVFs, temporal and interval joins)
TIME_ATTRIBUTE_PHRASES = (
    "requires the timecol is a time attribute type",
    "Temporal Table Join currently only supports",
    "time attribute",
    "rowtime attribute",
    "row time attribute",
    "processing time",
    "event time",
)
PRIMARY_KEY_PHRASES = ("requires primary key in versioned table", "primary key")
_NOT_FOUND = re.compile(r"Object '([^']+)' not found")
_WORD = re.compile(r"[A-Za-z_][\w$]*")
_DESCRIPTOR = re.compile(r"\bDESCRIPTOR\s*\(\s*[`\"]?(\w+)", re.IGNORECASE)
_AS_OF = re.compile(r"\bAS\s+OF\s+(?:[`\"]?\w+[`\"]?\s*\.\s*)?[`\"]?(\w+)", re.IGNORECASE)
_FILE_URI = re.compile(r"^file:/*", re.IGNORECASE)
#: phrases of an error about a file that is not there
NO_FILE_PHRASES = ("does not exist", "FileNotFoundException", "No such file")


@dataclass(frozen=True)
class DdlFiles:
    """What the diagnosis reads: the learner's ddl.sql (None: none to read), the lab's own (None: not given), the
    step's SQL (None: none to read), the init file's name and the data dir the lab's CSVs are in."""

    ddl: str | None
    reference: str | None = None
    step_sql: str | None = None
    init_file: str = "ddl.sql"
    data_dir: Path | None = None


def ddl_hint(reasons: Sequence[str], files: DdlFiles) -> str | None:
    """The hint naming what ddl.sql lacks when one of the output's error `reasons` comes from it; else None."""
    if files.ddl is None or not reasons:
        return None
    text = "\n".join(reasons)
    mine = tables_of(files.ddl)
    reference = tables_of(files.reference) if files.reference else {}
    for diagnose in (_missing_table, _missing_path, _missing_time_attribute, _missing_primary_key):
        hint = diagnose(text, mine, reference, files)
        if hint is not None:
            return hint
    return None


def _again(files: DdlFiles) -> str:
    return f"then run every step again (each runs with -i {files.init_file})."


def _read_by_step(mine: Mapping[str, TableDef], reference: Mapping[str, TableDef], files: DdlFiles) -> list[str]:
    """The tables the step's SQL names (every table when there is no SQL to read), the lab's order first."""
    names = list(dict.fromkeys([*reference, *mine]))
    if files.step_sql is None:
        return names
    words = {w.lower() for w in _WORD.findall(code_only(files.step_sql))}
    return [n for n in names if n in words]


def _missing_table(text: str, mine: Mapping[str, TableDef], reference: Mapping[str, TableDef],
                   files: DdlFiles) -> str | None:
    found = _NOT_FOUND.search(text)
    if found is None:
        return None
    name = found.group(1).split(".")[-1].strip("`").lower()
    if name in mine or name not in reference:
        return None  # defined (the error is elsewhere), or not a table of the lab: the step names a wrong one
    columns = ", ".join(reference[name].columns)
    near = difflib.get_close_matches(name, [n for n in mine if n not in reference], n=1, cutoff=0.6)
    typo = f" (it defines {near[0]}: a typo?)" if near else ""
    return (f"{files.init_file} defines no table {name}{typo}, so every step that reads it fails: add CREATE TABLE "
            f"{name} ({columns}) as the lab gives it to {files.init_file}, {_again(files)}")


def _local_path(path: str) -> str:
    """A path option as a local path (`file:///x` -> `/x`)."""
    return _FILE_URI.sub("/", path)


def _missing_path(text: str, mine: Mapping[str, TableDef], reference: Mapping[str, TableDef],
                  files: DdlFiles) -> str | None:
    for name, table in mine.items():
        path = table.options.get("path", "")
        local = _local_path(path)
        if not local or (path not in text and local not in text) or not any(p in text for p in NO_FILE_PHRASES):
            continue
        lab_file = PurePosixPath(_local_path(reference[name].options.get("path", ""))).name if name in reference \
            else ""
        file = lab_file or PurePosixPath(local).name
        where = f"{files.data_dir}/{file}" if files.data_dir is not None else f"the lab's data dir's {file}"
        return (f"{files.init_file} points {name} at '{path}', which does not exist: the lab's data is {where}. Set "
                f"'path' = '{where}' in {files.init_file}, {_again(files)}")
    return None


def _time_columns(name: str, mine: TableDef, reference: Mapping[str, TableDef], step_sql: str | None) -> list[str]:
    """The columns of `name` that must be time attributes: the lab's watermarked ones, else those the step's SQL
    uses as one (DESCRIPTOR(col), AS OF t.col), else its one TIMESTAMP column."""
    if name in reference:  # the lab's table: its watermarked columns, none when the lab declares none
        return [c for c in reference[name].rowtime if c in mine.columns]
    code = code_only(step_sql or "")
    used = [c.lower() for c in (*_DESCRIPTOR.findall(code), *_AS_OF.findall(code))]
    named = [c for c in dict.fromkeys(used) if c in mine.columns]
    if named:
        return named
    stamps = [c for c, kind in mine.types.items() if kind.startswith("TIMESTAMP")]
    return stamps if len(stamps) == 1 else []


def _missing_time_attribute(text: str, mine: Mapping[str, TableDef], reference: Mapping[str, TableDef],
                            files: DdlFiles) -> str | None:
    if not any(p in text for p in TIME_ATTRIBUTE_PHRASES):
        return None
    missing = []
    for name in _read_by_step(mine, reference, files):
        table = mine.get(name)
        if table is None:
            continue
        for column in _time_columns(name, table, reference, files.step_sql):
            if column not in table.rowtime and column not in table.proctime:
                expr = reference[name].rowtime.get(column, column) if name in reference else column
                missing.append((name, column, expr))
    if not missing:
        return None  # the time attributes are declared: the step's SQL loses or misnames one
    named = " and ".join(f"{t}.{c}" for t, c, _ in missing)
    columns = " and ".join(c for _, c, _ in missing)
    adds = "; ".join(f"`WATERMARK FOR {c} AS {e}` to CREATE TABLE {t}" for t, c, e in missing)
    verb = "is not a time attribute" if len(missing) == 1 else "are not time attributes"
    return (f"{files.init_file} declares no WATERMARK on {named}, so {columns} {verb} (windows and event-time joins "
            f"need one): add {adds} in {files.init_file}, {_again(files)}")


def _missing_primary_key(text: str, mine: Mapping[str, TableDef], reference: Mapping[str, TableDef],
                         files: DdlFiles) -> str | None:
    if not any(p in text for p in PRIMARY_KEY_PHRASES):
        return None
    for name in _read_by_step(mine, reference, files):
        if name in mine and name in reference and reference[name].primary_key and not mine[name].primary_key:
            key = ", ".join(reference[name].primary_key)
            return (f"{files.init_file} declares no PRIMARY KEY on {name}, so it is no versioned table: add "
                    f"`PRIMARY KEY ({key}) NOT ENFORCED` to CREATE TABLE {name} in {files.init_file}, {_again(files)}")
    return None
