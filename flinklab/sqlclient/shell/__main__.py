"""`python -m flinklab.sqlclient.shell [-i FILE]... [-D k=v]... [-hist PATH] [-s NAME] [-e HOST:PORT]`: the shell
against the running gateway (the one `flink-up` started, from the FLINKLAB_* environment), until `sql-client.sh`
opens it itself on a terminal. Bad options and missing files are one line and exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from flinklab.errors import ExitStatus, FlinklabError
from flinklab.settings import Settings


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m flinklab.sqlclient.shell", description="Flink's SQL shell.")
    p.add_argument("-i", "--init", action="append", default=[], metavar="FILE", type=Path)
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("-hist", "--history", metavar="PATH")
    p.add_argument("-s", "--session", metavar="NAME")
    p.add_argument("-e", "--endpoint", metavar="HOST:PORT")
    return p


def _defines(items: list[str]) -> dict[str, str]:
    defines = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise FlinklabError(f"-D {item!r} is not key=value.")
        defines[key.strip()] = value.strip()
    return defines


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]  # LANG=C: never a UnicodeError
    except (AttributeError, ValueError):
        pass
    try:
        from flinklab.sqlclient.client import SqlClient
        from flinklab.sqlclient.shell.app import ShellOptions, run_shell
        from flinklab.sqlclient.sqlfiles import read_sql

        settings = Settings.from_env()
        for path in args.init:
            read_sql(path)
        if not sys.stdin.isatty():
            raise FlinklabError("The shell needs a terminal; pipe a script into `sql-client.sh` instead.")
        endpoint = args.endpoint
        url = (endpoint if "://" in endpoint else "http://" + endpoint) if endpoint else None
        with SqlClient(settings, url) as client:  # one line when no cluster or no gateway answers
            url, cluster_url = client.url, client.cluster_url
        options = ShellOptions(url.rstrip("/"), cluster_url, list(args.init), _defines(args.defines),
                               args.history, args.session)
        beat = os.environ.get("FLINKLAB_SHELL_HEARTBEAT_SECONDS")
        if beat:  # tests: a heartbeat slower than the gateway's idle timeout, to lose a session on purpose
            options.heartbeat_seconds = float(beat)
        return int(run_shell(options))
    except FlinklabError as exc:
        print(f"error: {exc.message}" + (f" → {exc.hint}" if exc.hint else ""), file=sys.stderr)  # as the CLI
        return int(exc.exit_status)
    except KeyboardInterrupt:
        return int(ExitStatus.ERROR_CTRL_C)


if __name__ == "__main__":
    sys.exit(main())
