"""Logical types as Flink's SQL Gateway serializes them in a result's `columns` (LogicalTypeJsonSerializer).

`{"type": <LogicalTypeRoot name>, "nullable": bool}` plus, per type, its parameters: `length` (CHAR, VARCHAR,
BINARY, VARBINARY), `precision`/`scale` (DECIMAL), `precision` (TIME, TIMESTAMP*, and the day-time/year-month
intervals), `fields` (ROW: name, fieldType, description), `elementType` (ARRAY, MULTISET), `keyType`/`valueType`
(MAP). Anything else is written as its root only.
"""

from __future__ import annotations

from typing import Any

_LENGTH = {"CHAR", "VARCHAR", "BINARY", "VARBINARY"}
_PRECISION = {
    "TIME_WITHOUT_TIME_ZONE",
    "TIMESTAMP_WITHOUT_TIME_ZONE",
    "TIMESTAMP_WITH_TIME_ZONE",
    "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
}


def logical_type_json(logical: Any) -> dict[str, Any]:
    """The JSON object for a Java LogicalType (through py4j)."""
    root = str(logical.getTypeRoot().name())
    out: dict[str, Any] = {"type": root, "nullable": bool(logical.isNullable())}
    if root in _LENGTH:
        out["length"] = int(logical.getLength())
    elif root == "DECIMAL":
        out["precision"] = int(logical.getPrecision())
        out["scale"] = int(logical.getScale())
    elif root in _PRECISION:
        out["precision"] = int(logical.getPrecision())
    elif root == "ROW":
        fields = []
        for f in logical.getFields():
            item: dict[str, Any] = {"name": str(f.getName()), "fieldType": logical_type_json(f.getType())}
            description = f.getDescription()
            if description.isPresent():
                item["description"] = str(description.get())
            fields.append(item)
        out["fields"] = fields
    elif root in ("ARRAY", "MULTISET"):
        out["elementType"] = logical_type_json(logical.getElementType())
    elif root == "MAP":
        out["keyType"] = logical_type_json(logical.getKeyType())
        out["valueType"] = logical_type_json(logical.getValueType())
    return out

