"""flinklab.dbapi without a cluster: PEP 249's module interface, parameters as Flink SQL literals, PLAIN_TEXT cells
read by column type, and a gateway that does not answer as one OperationalError naming it."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
from helpers.env import free_port, make_settings

import flinklab.dbapi as dbapi
from flinklab.dbapi.connection import open_connection
from flinklab.dbapi.cursor import bind
from flinklab.dbapi.errors import flink_error
from flinklab.dbapi.values import convert_row, converters, describe
from flinklab.sqlclient.protocol import GatewayError


def test_module_globals_and_exception_hierarchy() -> None:
    assert (dbapi.apilevel, dbapi.threadsafety, dbapi.paramstyle) == ("2.0", 1, "qmark")
    for name in ("InterfaceError", "DatabaseError"):
        assert issubclass(getattr(dbapi, name), dbapi.Error)
    for name in ("DataError", "OperationalError", "IntegrityError", "InternalError", "ProgrammingError",
                 "NotSupportedError"):
        assert issubclass(getattr(dbapi, name), dbapi.DatabaseError)
    assert issubclass(dbapi.Error, Exception) and issubclass(dbapi.Warning, Exception)
    assert dbapi.Date(2024, 1, 2) == dt.date(2024, 1, 2)
    assert dbapi.TimestampFromTicks(0).year in (1969, 1970)


def test_qmark_parameters_become_literals_outside_quotes_and_comments() -> None:
    sql = bind("SELECT '?', ? AS a, ? -- ?\n, ?, ?, ?, ?", ["it's", 2, None, Decimal("1.50"),
                                                          dt.datetime(2024, 1, 2, 3, 4, 5), True])
    assert sql == ("SELECT '?', 'it''s' AS a, 2 -- ?\n, NULL, 1.50, TIMESTAMP '2024-01-02 03:04:05', TRUE")
    with pytest.raises(dbapi.ProgrammingError, match="More `\\?` placeholders"):
        bind("SELECT ?, ?", [1])
    with pytest.raises(dbapi.ProgrammingError, match="More parameters"):
        bind("SELECT ?", [1, 2])


def _column(name: str, root: str, **extra: object) -> dict:
    return {"name": name, "logicalType": {"type": root, "nullable": True, **extra}}


def test_cells_read_by_type_and_description_names_flinks_types() -> None:
    columns = [_column("n", "BIGINT"), _column("amount", "DECIMAL", precision=10, scale=2),
               _column("t", "TIMESTAMP_WITHOUT_TIME_ZONE", precision=3), _column("ok", "BOOLEAN"),
               _column("s", "VARCHAR", length=2147483647), _column("d", "DATE"), _column("a", "ARRAY")]
    row = convert_row(["3", "12.50", "2024-03-04 08:00:37.000", "TRUE", "x", "2024-03-04", "[1, 2]"],
                      converters(columns))
    assert row == (3, Decimal("12.50"), dt.datetime(2024, 3, 4, 8, 0, 37), True, "x", dt.date(2024, 3, 4), "[1, 2]")
    assert convert_row([None, "not a number"], converters(columns[:2])) == (None, "not a number")
    assert [describe(c)[1] for c in columns[:3]] == ["BIGINT", "DECIMAL(10, 2)", "TIMESTAMP(3)"]
    assert describe(columns[1])[4:6] == (10, 2)
    assert describe(columns[1])[1] == dbapi.NUMBER and describe(columns[2])[1] == dbapi.DATETIME
    assert describe(columns[4])[1] == dbapi.STRING and describe(columns[4])[1] != dbapi.NUMBER


def test_flink_errors_map_to_pep_249_classes_with_the_reason_the_shell_prints() -> None:
    server = ("<Exception on server side:\norg.apache.flink.table.gateway.api.utils.SqlGatewayException: x\n"
              "Caused by: org.apache.calcite.sql.validate.SqlValidatorException: Column 'nope' not found in any "
              "table\n\tat org.apache.calcite...\nEnd of exception on server side>")
    error = flink_error(GatewayError(500, ["Internal server error.", server]))
    assert isinstance(error, dbapi.ProgrammingError)
    assert str(error) == "org.apache.calcite.sql.validate.SqlValidatorException: Column 'nope' not found in any table"
    job = flink_error(GatewayError(500, ["<Exception on server side:\nCaused by: org.apache.flink.runtime."
                                         "JobException: Recovery is suppressed\nEnd of exception on server side>"]))
    assert isinstance(job, dbapi.OperationalError) and not isinstance(job, dbapi.ProgrammingError)


def test_no_gateway_is_one_operational_error_naming_the_url(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, rest_port=free_port(), gateway_port=free_port())
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(dbapi.OperationalError) as caught:
        open_connection(settings, url)
    assert str(caught.value) == f"No SQL gateway answers at {url}. Start the cluster and its gateway with `flink-up`."
    with pytest.raises(dbapi.OperationalError) as caught:
        open_connection(settings)  # the default gateway, found as sql-client.sh finds it: its cluster asked first
    assert str(caught.value).startswith(f"No Flink cluster answers at http://127.0.0.1:{settings.rest_port}. Start one")
