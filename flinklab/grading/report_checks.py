"""Grade a lab's report.json: one check per field (present, of the right JSON type, equal to the reference).

The lab supplies its fields, the reference values, where each field is read from and the hint for a wrong value
(its knowledge of the likely mistakes); the loading, the type rules and the messages are the same for every lab.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal
from typing import Any

from flinklab.grading.context import GradingContext
from flinklab.grading.files import MAX_JSON_BYTES, FileReadError
from flinklab.grading.outputs import format_number
from flinklab.grading.results import CheckResult, failed, passed
from flinklab.grading.values import as_decimal, clip, numbers_close

STEP = "report"
#: the one check a report.json that cannot be read fails (worth all its fields)
WHOLE_REPORT = "report: report.json"

#: hint_for(field, found, expected report) -> the hint for a value that is not the expected one
HintFor = Callable[[str, Any, Mapping[str, Any]], str]


def load_report(ctx: GradingContext) -> tuple[dict[str, Any] | None, str]:
    """report.json as a dict, or None and the one-sentence problem (missing, not JSON, not an object)."""
    try:
        text = ctx.read("report.json", limit=MAX_JSON_BYTES)
    except FileReadError as exc:
        return None, str(exc)
    if text is None:
        return None, "report.json does not exist."
    try:
        report = json.loads(text)
    except ValueError as exc:  # also a number too long to convert
        return None, f"report.json is not valid JSON ({clip(str(exc), 200)})."
    except RecursionError:
        return None, "report.json is nested too deeply to be a report."
    if not isinstance(report, dict):
        return None, "report.json is not a JSON object."
    return report, ""


def _sql_type(value: Any) -> str:
    """What a JSON value is, in the words of the SQL the lab is about (a learner knows STRING, not `str`)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "a BOOLEAN"
    if isinstance(value, str):
        return "a STRING"
    if isinstance(value, float):
        return "a DOUBLE"
    if isinstance(value, list):
        return "an ARRAY"
    if isinstance(value, dict):
        return "a MAP"
    return "a number"


def type_hint(field: str, got: Any, whole: bool) -> str:
    """`Write rows as a whole number (an INT), not a STRING: 12 without the quotes.` for a value of the wrong
    JSON type; the fix is shown when the value itself says what was meant."""
    wanted = "a whole number (an INT)" if whole else "a number (an INT, DOUBLE or DECIMAL)"
    fix = ""
    number = as_decimal(got.strip()) if isinstance(got, str) and got.strip() else None
    if number is not None and (not whole or number == number.to_integral_value()):
        fix = f": {format_number(number)} without the quotes"
    elif isinstance(got, float) and whole and got.is_integer():
        fix = f": {int(got)} without the decimal point"
    return f"Write {field} as {wanted}, not {_sql_type(got)}{fix}."


def report_field_checks(
    ctx: GradingContext,
    fields: Sequence[str],
    expected: Mapping[str, Any],
    *,
    integer_fields: Collection[str],
    sources: Mapping[str, str],
    hint_for: HintFor,
    tolerance: Decimal,
    lab_name: str,
    fields_phrase: str = "the lab's fields",
    read_verb: str = "Read",
    missing_hint: Callable[[str], str | None] | None = None,
) -> list[CheckResult]:
    """One check `report: <field>` per field, worth 1 point each; a report.json that is missing or cannot be read
    is one failed check (WHOLE_REPORT) worth them all.

    `sources[field]` names the output(s) a field is read from (e.g. `hop.out`); fields in `integer_fields` must be
    JSON whole numbers, the others any JSON number; a value within `tolerance` of `expected[field]` passes.
    `fields_phrase` and `read_verb` word the hints ("Write report.json with <fields_phrase>", "<read_verb> it
    from <source>"); `missing_hint(field)` may say better why a field is missing (its output gives none).
    """
    report, problem = load_report(ctx)
    if report is None:  # one failure, worth every field's point: not one row per field with the same words
        hint = (f"Write report.json with {fields_phrase} (or `flinklab run {lab_name}`, which writes it from the "
                "outputs).")
        return [failed(WHOLE_REPORT, len(fields), f"{problem} It holds {len(fields)} field(s), 1 point each: "
                       f"{', '.join(fields)}.", hint, step=STEP)]
    results = []
    for field in fields:
        name = f"report: {field}"
        want = expected[field]
        if field not in report:
            hint = (missing_hint(field) if missing_hint is not None else None) or \
                f"{read_verb} it from {sources[field]} (run that step first if it is missing)."
            results.append(failed(name, 1, f"expected {field} = {format_number(want)}; the field is missing.", hint,
                                  step=STEP))
            continue
        got = report[field]
        # bool is an int in Python, never a number in the report; NaN and Infinity parse as floats but are no
        # number a field can hold (and a number too long for a message is none either)
        if field in integer_fields:
            type_ok, type_name = isinstance(got, int) and not isinstance(got, bool), "a whole number"
        else:
            type_ok, type_name = isinstance(got, (int, float)) and not isinstance(got, bool), "a number"
        if type_ok and as_decimal(got) is None:
            results.append(failed(name, 1, f"expected {type_name} ({format_number(want)}); found "
                                  f"{clip(json.dumps(got))}, which is not a finite number of sensible size.",
                                  f"Write {field} as a plain JSON number (NaN and Infinity are not numbers).",
                                  step=STEP))
        elif not type_ok:
            results.append(failed(name, 1, f"expected {type_name} ({format_number(want)}); found "
                                  f"{clip(json.dumps(got))}.", type_hint(field, got, field in integer_fields),
                                  step=STEP))
        elif numbers_close(want, got, tolerance):
            results.append(passed(name, 1, step=STEP))
        else:
            results.append(failed(name, 1, f"expected {field} = {format_number(want)}; found {format_number(got)}.",
                                  hint_for(field, got, expected), step=STEP))
    return results
