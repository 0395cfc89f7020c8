"""Derive the broken variants from the real captures in this folder (run from here; outputs are committed).

Every `derived_*.out` is a mechanical edit of one real capture: CRLF line endings, or the file cut off where a
killed client or a full disk would cut it. Nothing here is typed by hand.
"""

from pathlib import Path

HERE = Path(__file__).parent


def real(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def write(name: str, text: str) -> None:
    (HERE / name).write_bytes(text.encode("utf-8"))


def cut_after_line(text: str, needle: str, extra_chars: int = 0) -> str:
    """Keep everything up to the end of the first line containing `needle`, plus `extra_chars` of the next line."""
    end = text.index("\n", text.index(needle)) + 1
    return text[: end + extra_chars]


write("derived_crlf_streaming_agg.out", real("pyflink_streaming_agg.out").replace("\n", "\r\n"))
write("derived_crlf_sqlclient2x_error.out", real("sqlclient2x_error.out").replace("\n", "\r\n"))
write("derived_crlf_sqlclient2x_count_glued_echo.out", real("sqlclient2x_count_glued_echo.out").replace("\n", "\r\n"))
# Cut in the middle of the 4th data row: 3 whole rows survive, no closing border, no footer.
write("derived_truncated_streaming_agg.out", cut_after_line(real("pyflink_streaming_agg.out"), "| -U |", 17))
# Cut right after the only data row of the real 2.x capture.
write("derived_truncated_sqlclient2x_count.out", cut_after_line(real("sqlclient2x_count_glued_echo.out"), "|  10 |"))
# The client ran the first query, then failed on the next statement (two real captures, one after the other).
write(
    "derived_table_then_error.out",
    real("sqlclient2x_count_glued_echo.out").replace("Shutting down the session...\ndone.\n", "")
    + real("sqlclient2x_error.out"),
)
