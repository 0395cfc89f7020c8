"""Cluster commands: `flinklab up/down/status/logs`, and the `flink-up` / `flink-down` console scripts.

Bodies stay thin: build Settings, call flinklab.cluster.*, render.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Optional

import typer
from rich.markup import escape

from flinklab.cli.app import app, command, console, err_console, settings_from
from flinklab.cluster.registry import backend_class, backend_names
from flinklab.errors import ExitStatus, UsageError

if TYPE_CHECKING:  # the cluster's modules load when a command runs: `flinklab --help` needs none of them
    from rich.status import Status

    from flinklab.cluster.base import ClusterStatus, UpResult
    from flinklab.cluster.progress import Progress
    from flinklab.usecases.cluster import BackendChosen, DownResult
    from flinklab.usecases.provision import LabWorkspace

# typer reads the parameter annotations at run time: typing.Optional keeps the commands working on Python 3.9.
# Numbers are taken as text and checked here, so a bad value is one line + exit 2 like every other user error
# (typer's own type errors print a multi-line usage box).
BACKEND_OPT = typer.Option(None, "--backend", metavar="|".join(("auto", *backend_names())),
                           help="Where the cluster runs (remote: attach to a running one).")
REST_URL_OPT = typer.Option(None, "--rest-url", metavar="http://HOST:PORT",
                            help="The running cluster to attach to (--backend remote).")
TMS_OPT = typer.Option(None, "--taskmanagers", metavar="N", help="Number of TaskManagers (default 1).")
SLOTS_OPT = typer.Option(None, "--slots", metavar="N", help="Slots per TaskManager (default 4).")
PORT_OPT = typer.Option(None, "--port", metavar="P", help="REST / Web UI port on 127.0.0.1 (default 8081).")
DATA_OPT = typer.Option(None, "--data-dir", metavar="DIR",
                        help="Where the lab CSVs are provisioned (remote: where its TaskManagers read them).")
WORKSPACE_OPT = typer.Option(None, "--workspace", metavar="DIR", help="Root of the lab workspaces (~/flink).")
GATEWAY_PORT_OPT = typer.Option(None, "--gateway-port", metavar="P",
                                help="SQL gateway port on 127.0.0.1 (8083; 0 starts none).")
SHARED_OPT = typer.Option(False, "--shared", help="A machine other users log in to: the local cluster's REST API "
                          "asks for flinklab's own client certificate (mutual TLS); the Web UI is the gateway's.")
VERBOSE_OPT = typer.Option(False, "--verbose", "-v",
                           help="Also print the detail behind the backend choice (e.g. why Docker cannot serve).")


def _whole(option: str, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"{option} must be a whole number, not {value!r}.") from None


def up(
    backend: Optional[str] = BACKEND_OPT,
    taskmanagers: Optional[str] = TMS_OPT,
    slots: Optional[str] = SLOTS_OPT,
    port: Optional[str] = PORT_OPT,
    data_dir: Optional[str] = DATA_OPT,
    workspace: Optional[str] = WORKSPACE_OPT,
    rest_url: Optional[str] = REST_URL_OPT,
    gateway_port: Optional[str] = GATEWAY_PORT_OPT,
    shared: bool = SHARED_OPT,
    verbose: bool = VERBOSE_OPT,
) -> None:
    """Start (or repair) a Flink session cluster, or attach to a running one (--backend remote --rest-url URL),
    and its SQL gateway; returns when TaskManagers and slots are registered and the gateway answers."""
    settings = settings_from(
        backend=backend, taskmanagers=_whole("--taskmanagers", taskmanagers), slots=_whole("--slots", slots),
        rest_port=_whole("--port", port), data_dir=data_dir, workspace_root=workspace, remote_url=rest_url,
        gateway_port=_whole("--gateway-port", gateway_port), shared=True if shared else None,
    )
    if rest_url and settings.backend not in ("auto", "remote"):
        raise UsageError(f"--rest-url is for --backend remote, not --backend {settings.backend}.")
    from flinklab.flink.waiting import ClusterStartError
    from flinklab.usecases.cluster import bring_up
    from flinklab.usecases.provision import lab_data_files, lab_workspaces

    workspaces = lab_workspaces(settings)  # before the cluster: a docker backend mounts the workspace root

    with console.status("starting the cluster…") as spinner:
        try:
            result = bring_up(settings, progress=UpView(spinner, verbose), data_files=lab_data_files())
        except ClusterStartError as exc:
            for line in exc.log_tail:
                err_console.print(f"  [dim]{escape(line)}[/]", soft_wrap=True)
            raise
    render_up(result, settings.gateway_url, workspaces)
    if not result.status.shared and backend_class(result.status.backend).mutual_tls:
        from flinklab.access import other_login_users

        others = other_login_users()
        if others:
            console.print(f"[dim]note: other accounts can log in here ({escape(', '.join(others[:3]))}"
                          f"{', …' if len(others) > 3 else ''}); if they are people, `flink-up --shared` keeps "
                          "them off the cluster's REST port (see docs/security.md, \"A shared machine\").[/]")


class UpView:
    """Draws flink-up's progress events: the backend chosen in one line (its detail with `verbose`), each step as a
    dim line under the spinner, an image pull's layers on the spinner only."""

    def __init__(self, spinner: Status, verbose: bool):
        self.spinner, self.verbose = spinner, verbose

    def __call__(self, event: Progress) -> None:
        from flinklab.cluster.progress import LayerPulled
        from flinklab.usecases.cluster import BackendChosen

        if isinstance(event, LayerPulled):
            done = f" {event.current / 1e6:.1f}/{event.total / 1e6:.1f} MB" if event.current and event.total else ""
            self.spinner.update(escape(f"{event}{done}"))
            return
        self.spinner.update(escape(str(event)))
        if isinstance(event, BackendChosen):
            render_backend(event, self.verbose)
        else:
            console.print(f"  [dim]· {escape(str(event))}[/]")


def render_backend(chosen: BackendChosen, verbose: bool) -> None:
    """`backend: NAME (why)` in one line; the detail behind the why only when `verbose`."""
    why = f"({chosen.why})"
    if chosen.detail and not verbose:
        why = f"({chosen.why}; --verbose says why)"
    console.print(f"backend: [bold]{escape(chosen.name)}[/] [dim]{escape(why)}[/]", soft_wrap=True)
    if verbose:
        for line in chosen.detail.splitlines():
            console.print(f"  [dim]· {escape(line)}[/]", soft_wrap=True)


def render_up(result: UpResult, gateway_url: str, workspaces: Sequence[LabWorkspace] = ()) -> None:
    st = result.status
    if result.already_running:
        console.print(f"[green]already running[/] — nothing to do ({st.taskmanagers} TaskManager(s), "
                      f"{st.slots_total} slots)")
    elif result.repaired:
        console.print(f"[yellow]repaired[/]: restarted {', '.join(result.repaired)}")
    if not result.already_running:
        console.print(f"[green]ready[/] in {result.seconds:.1f}s: Flink {st.flink_version}, "
                      f"{st.taskmanagers} TaskManager(s), {st.slots_available}/{st.slots_total} slots free")
    if st.shared and gateway_url.endswith(":0"):
        console.print(f"Web UI: [dim]none (--shared without the SQL gateway, which forwards it); the REST API "
                      f"{st.rest_url} asks for flinklab's client certificate[/]", soft_wrap=True)
    elif st.shared:  # the REST port wants the client certificate, which a browser lacks: the gateway forwards
        from flinklab.gateway.webui import PREFIX

        console.print(f"Web UI: [bold]{gateway_url}{PREFIX}/[/] [dim](through the SQL gateway; the REST API "
                      f"{st.rest_url} asks for flinklab's client certificate)[/]", soft_wrap=True)
    else:
        console.print(f"Web UI: [bold]{st.rest_url}[/]" + (" [dim](attached: flinklab did not start it)[/]"
                                                            if st.attached else ""))
    if not gateway_url.endswith(":0"):
        console.print(f"SQL gateway (Flink's SQL Gateway REST API): [bold]{gateway_url}[/]")
    render_workspaces(workspaces)
    console.print("Next:")
    first = workspaces[0] if workspaces else None
    lab = first.lab.name if first is not None else "LAB"
    console.print(f"  {f'flinklab labs {lab}'.ljust(25)} # the lab's steps and guide")
    if first is not None and first.lab.steps:  # a line to paste: the real workspace and the lab's first step
        step = first.lab.steps[0]
        init = f"-i {first.lab.init_file} " if step.uses_init else ""
        console.print(f"  cd {escape(str(first.path))} && sql-client.sh {init}-f {step.sql_file} > {step.out_file} "
                      "2>&1", soft_wrap=True)
    console.print(f"  {f'flinklab run {lab}'.ljust(25)} # every step of the lab")
    console.print(f"  {'flink-down'.ljust(25)} # " + ("detach (the cluster keeps running)" if st.attached
                                                    else "stop the cluster"))
    console.print("Start here: [bold]flinklab labs[/] (the labs, in the course's order)")


def render_workspaces(workspaces: Sequence[LabWorkspace]) -> None:
    """Where each lab's workspace is, and which ones flink-up created now."""
    if not workspaces:
        return
    created = [w.lab.name for w in workspaces if w.created]
    console.print("Lab workspaces" + (f" (created: {', '.join(created)})" if created else "") + ":")
    width = max(len(w.lab.name) for w in workspaces)
    for w in workspaces:
        console.print(f"  {w.lab.name.ljust(width)}  {escape(str(w.path))}", soft_wrap=True)


def down() -> None:
    """Stop what `flink-up` started, or detach from a remote cluster (a no-op when nothing runs)."""
    from flinklab.usecases.cluster import bring_down

    result = bring_down(settings_from(), say=lambda event: console.print(f"[yellow]{escape(str(event))}[/]",
                                                                         soft_wrap=True))
    render_down(result)


def render_down(result: DownResult) -> None:
    if result.stopped:
        console.print(f"stopped the {result.backend} cluster")
    elif result.done:
        console.print(f"detached from the {result.backend} cluster at {result.rest_url} (it keeps running)")
    else:
        console.print("no flinklab cluster is running: nothing to stop")


def status(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """Backend, Flink version, TaskManagers, slots, jobs, SQL gateway, state dir and problems. Exit 1 when not
    healthy."""
    from flinklab.environment.gateway import GatewayProcess
    from flinklab.environment.select import cluster_status

    settings = settings_from()
    st = cluster_status(settings)
    gw = GatewayProcess(settings).status()
    if st.running and not gw.healthy and settings.gateway_port:
        st.problems.append(f"the SQL gateway does not answer at {gw.url} (its log: {gw.log})")
    if as_json:
        sys.stdout.write(json.dumps({**asdict(st), "gateway": {**asdict(gw), "healthy": gw.healthy}}, indent=2)
                         + "\n")
    else:
        render_status(st)
        state = "[green]answering[/]" if gw.healthy else "[red]not running[/]"
        if not settings.gateway_port:
            state = "[dim]off (gateway port 0)[/]"
        console.print(f"SQL gateway:   {state} at {gw.url}" + (f" (pid {gw.pid})" if gw.pid else ""))
        if st.shared and settings.gateway_port:
            from flinklab.gateway.webui import PREFIX

            console.print(f"Web UI:        {gw.url}{PREFIX}/ [dim](through the SQL gateway)[/]")
        if gw.pid:
            console.print(f"  its token:   {gw.token} [dim](other clients send it as the header "
                          "`Authorization: Bearer <token>`; see docs/security.md)[/]", soft_wrap=True)
    if not st.running or st.problems:
        raise typer.Exit(int(ExitStatus.FAILURE))


def prepare() -> None:
    """Make this machine's class-data archives, once (scripts/install.sh runs it): start the local cluster and its
    SQL gateway as flink-up does, wait while their JVMs' classes are archived, stop. The first flink-up then starts
    as fast as later ones."""
    from flinklab.usecases.cluster import prepare as prepare_archives
    from flinklab.usecases.provision import lab_data_files

    settings = settings_from()
    with console.status("preparing the local cluster's first start…") as spinner:
        result = prepare_archives(settings, progress=UpView(spinner, verbose=False), data_files=lab_data_files())
    if not result.done:
        console.print("a cluster runs on this state dir already (its start made the archives): nothing to do",
                      soft_wrap=True)
    elif not result.complete:
        console.print(f"[yellow]stopped before every archive was made[/] ({result.seconds:.0f}s): the next "
                      "flink-up makes the rest", soft_wrap=True)
    else:
        console.print(f"prepared in {result.seconds:.0f}s: the next flink-up starts from the archives",
                      soft_wrap=True)


def render_status(st: ClusterStatus) -> None:
    state = "[green]running[/]" if st.running else "[red]not running[/]"
    if st.backend == "none":
        state = "[red]none started by flinklab[/]"
    if st.attached:  # flinklab did not start it: say so, `flink-down` only detaches
        console.print(f"cluster:       {state}, {st.backend} (attached)")
    else:
        console.print(f"cluster:       {state} ({st.backend})")
    if st.shared:
        console.print(f"REST:          {st.rest_url} [dim](mutual TLS: --shared)[/]")
    else:
        console.print(f"REST / Web UI: {st.rest_url}")
    if st.flink_version:
        console.print(f"Flink:         {st.flink_version}")
        console.print(f"TaskManagers:  {st.taskmanagers}" + (
            f" of {st.expected_taskmanagers}" if st.expected_taskmanagers else ""))
        console.print(f"slots:         {st.slots_total} total, {st.slots_available} free")
        console.print(f"jobs:          {st.jobs_running} running, {st.jobs_finished} finished, "
                      f"{st.jobs_failed} failed, {st.jobs_cancelled} cancelled")
    console.print(f"state dir:     {st.state_dir}")
    for problem in st.problems:
        console.print(f"[yellow]problem:[/] {escape(problem)}")
    if st.problems and st.backend != "none":
        console.print("[dim]`flink-up` repairs a half-dead cluster; `flinklab logs` shows why it died.[/]")


def logs(
    component: Optional[str] = typer.Argument(
        None, metavar="COMPONENT", help="jobmanager | taskmanager | taskmanager-N | gateway (default: cluster)."
    ),
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing new lines (Ctrl-C stops)."),
) -> None:
    """Show (or follow) the JobManager / TaskManager / SQL gateway logs."""
    settings = settings_from()
    try:
        if component == "gateway":
            from flinklab.environment.gateway import GatewayProcess

            lines = GatewayProcess(settings).follow_logs(None, follow)
        else:
            from flinklab.environment.select import log_backend

            lines = log_backend(settings).follow_logs(component, follow)
        for line in lines:
            sys.stdout.write(line + "\n")
            if follow:
                sys.stdout.flush()
    except KeyboardInterrupt:  # the normal way to end --follow
        return


command("up")(up)
command("down")(down)
command("status")(status)
command("logs")(logs)
command("prepare")(prepare)

up_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, help="Start a Flink cluster.")
down_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, help="Stop the Flink cluster.")
command(target=up_app)(up)
command(target=down_app)(down)


def flink_up_main() -> None:
    """`flink-up`: the same as `flinklab up`."""
    up_app(prog_name="flink-up")


def flink_down_main() -> None:
    """`flink-down`: the same as `flinklab down`."""
    down_app(prog_name="flink-down")


__all__ = ["app", "down_app", "flink_down_main", "flink_up_main", "up_app"]
