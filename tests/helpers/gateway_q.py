"""Flink's SQL *gateway* golden files (`flink-table/flink-sql-gateway/src/test/resources/sql/*.q`) replayed over
REST the way SqlGatewayRestEndpointStatementITCase does: one session per file and row format, each statement
executed, waited for until its operation is terminal, fetched from token 0, and printed as
AbstractSqlGatewayStatementITCase.toString prints it:

- `EXPLAIN ...` / `SHOW CREATE ...`: the first field of the first row, node ids blanked and trimmed
  (TableTestUtil.replaceStreamNodeId / replaceNodeIdInOperator), `!ok`;
- a first column named `job id`: `Job ID:` and `!info` (the id itself is not compared);
- anything else: a tableau with data-inferred widths, NULL as an empty cell, an `op` column for a streaming query,
  `N rows in set` / `Empty set`, `!ok`;
- an error: the text of the client's exception after its last `Caused by: ` up to its first `\\tat `, `!error`.

A file is a list of cases (comment lines, the statement, its expected block); SqlScriptReader's format.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from flinklab.sqlclient import tableau

DATA = Path(__file__).resolve().parent.parent / "data" / "gateway_q"
OUTPUT = "!output"
TAGS = ("!ok", "!info", "!error")
_SHORT_KINDS = {"INSERT": "+I", "UPDATE_BEFORE": "-U", "UPDATE_AFTER": "+U", "DELETE": "-D"}


@dataclass(frozen=True)
class GatewayCase:
    index: int
    statement: str  # as in the file, with its `;`
    expected: str  # the block from `!output` to its tag, both included


def load_cases(name: str, variables: dict[str, str]) -> list[GatewayCase]:
    """The cases of `name`, its `$VAR_...` placeholders replaced (longest first, as StringUtils.replaceEach)."""
    text = (DATA / name).read_text(encoding="utf-8")
    for key in sorted(variables, key=len, reverse=True):
        text = text.replace(key, variables[key])
    cases: list[GatewayCase] = []
    sql: list[str] = []
    block: list[str] | None = None
    for line in text.split("\n"):
        if block is not None:
            block.append(line)
            if line.strip() in TAGS:
                cases.append(GatewayCase(len(cases), "\n".join(sql), "\n".join(block) + "\n"))
                sql, block = [], None
            continue
        if line.strip() == OUTPUT:
            block = [OUTPUT]
        elif sql or (line.strip() and not line.startswith("#")):
            sql.append(line)
    return cases


def _cell(value: object, row_format: str) -> str:
    if value is None:
        return ""
    if row_format == "JSON" and isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


_JAVA_WHITESPACE = "".join(chr(c) for c in range(33))  # what Java's String.trim strips


def normalize_plan(text: str) -> str:
    """TableTestUtil.replaceStreamNodeId(replaceNodeIdInOperator(text)), as the ITCase applies them to an EXPLAIN
    or SHOW CREATE answer: stream node ids and operator ids blanked, the text trimmed."""
    text = re.sub(r'"contents"\s*:\s*"\[\d+\]:', '"contents" : "[]:', text)
    text = re.sub(r'("type"\s*:\s*".*?)\[\d+\]', r"\1[]", text)
    # a sink's `"contents" : "orders2[79]: Writer"`: the stored table.q has it blanked (`orders2[]: Writer`), so the
    # ITCase that wrote it blanked it too; the TableTestUtil in the index blanks only a leading `[79]:`
    text = re.sub(r'("contents"\s*:\s*"[^"\[]+)\[\d+\]', r"\1[]", text)
    return re.sub(r'"id"\s*:\s*\d+', '"id" : ', text).strip(_JAVA_WHITESPACE)


def render(statement: str, bodies: list[dict], row_format: str, streaming: bool) -> str:
    """What the ITCase prints for a statement's result `bodies` (token 0 up to EOS)."""
    words = " ".join(statement.upper().split())
    columns = bodies[0]["results"]["columns"]
    rows = [row for body in bodies for row in body["results"]["data"]]
    if words.startswith(("EXPLAIN", "SHOW CREATE")):
        return f"{OUTPUT}\n{normalize_plan(str(rows[0]['fields'][0]))}\n!ok\n"
    if columns and columns[0]["name"] == "job id":
        return f"{OUTPUT}\nJob ID:\n!info\n"
    names = [c["name"] for c in columns]
    cells = [[_cell(v, row_format) for v in row["fields"]] for row in rows]
    if words.startswith("SELECT") and streaming:
        names = [tableau.ROW_KIND_COLUMN, *names]
        cells = [[_SHORT_KINDS[row["kind"]], *c] for row, c in zip(rows, cells, strict=True)]
    return OUTPUT + "\n" + "\n".join(tableau.render_content(names, cells)) + "\n!ok\n"


def error_block(errors: list[str]) -> str:
    """The ITCase's stringifyException of the RestClientException carrying `errors` (Java's List.toString)."""
    message = "[" + ", ".join(errors) + "]"
    return f"{OUTPUT}\n{message.split('Caused by: ')[-1].split(chr(9) + 'at ')[0].strip()}\n!error\n"


class Replayer:
    """One session on the gateway at `http`, run as the ITCase runs a file in one row format.

    Its URLs carry no version: the REST API's default (latest) version, as the ITCase's RestClient uses; `/v1`
    knows no `rowFormat` and would serve JSON rows for a PLAIN_TEXT replay."""

    def __init__(self, http: httpx.Client, row_format: str):
        self.http = http
        self.row_format = row_format
        response = http.post("/sessions", json={"properties": {}})
        response.raise_for_status()
        self.session = response.json()["sessionHandle"]

    def close(self) -> None:
        self.http.delete(f"/sessions/{self.session}")

    def _streaming(self) -> bool:
        conf = self.http.get(f"/sessions/{self.session}").json()["properties"]
        return conf.get("execution.runtime-mode", "streaming").strip().lower() == "streaming"

    def run(self, statement: str, timeout: float = 300.0) -> str:
        sql = statement.strip()
        sql = sql[:-1] if sql.endswith(";") else sql
        response = self.http.post(f"/sessions/{self.session}/statements", json={"statement": sql})
        if response.status_code != 200:
            return error_block(response.json().get("errors", []))
        operation = response.json()["operationHandle"]
        base = f"/sessions/{self.session}/operations/{operation}"
        deadline = time.monotonic() + timeout
        while self.http.get(f"{base}/status").json().get("status") not in (
                "FINISHED", "CANCELED", "CLOSED", "ERROR", "TIMEOUT"):
            assert time.monotonic() < deadline, f"{sql}: the operation did not end"  # a hung gateway
            time.sleep(0.05)
        bodies: list[dict] = []
        uri: str | None = f"{base}/result/0?rowFormat={self.row_format}"
        while uri is not None:
            response = self.http.get(uri)
            if response.status_code != 200:
                if bodies and bodies[0]["results"]["columns"][:1] and \
                        bodies[0]["results"]["columns"][0]["name"] == "job id":
                    break  # a job id was served: the ITCase reads no further
                return error_block(response.json().get("errors", []))
            body = response.json()
            if body["resultType"] != "NOT_READY":
                bodies.append(body)
            uri = body.get("nextResultUri")
        return render(sql, bodies, self.row_format, self._streaming())
