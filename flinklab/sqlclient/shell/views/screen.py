"""A result view on the terminal: a full-screen prompt_toolkit Application that shows the current view, hands it
the keys and refreshes it at its interval. The toggle key swaps the view for the other one over the same result.

The screen only reads: the executor's fetching thread fills the result's stores; the view takes a snapshot at its
refresh interval, so a fast-changing result of many rows costs one snapshot per interval, not one redraw per change.
"""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output

from flinklab.sqlclient.shell.result import QueryResult
from flinklab.sqlclient.shell.views import frame
from flinklab.sqlclient.shell.views.base import Fragments, Key, ResultView
from flinklab.sqlclient.shell.views.modes import OTHER

_TICK = 0.05


class ViewScreen:
    """One query's result on the screen, starting in `view`; `run()` returns when the learner leaves it (or the
    result failed)."""

    def __init__(self, result: QueryResult, view: type[ResultView], output: Output | None = None,
                 input: Input | None = None):
        self.result = result
        control = FormattedTextControl(self.fragments, focusable=True, show_cursor=False)
        self.app: Application[None] = Application(
            layout=Layout(Window(control, wrap_lines=False)), key_bindings=self._bindings(), full_screen=True,
            output=output, input=input, mouse_support=False,
        )
        self.app.ttimeoutlen = 0.05  # Esc alone leaves quickly (Flink: "make ESC quicker")
        self.app.timeoutlen = 0.05
        self.view = view(result, self.size)

    def size(self) -> tuple[int, int]:
        size = self.app.output.get_size()
        return size.columns, size.rows

    def fragments(self) -> Fragments:
        return self.view.fragments(*self.size())

    def run(self) -> None:
        """Show the view until the learner leaves it (or the query fails)."""
        self.view.refresh()

        async def main() -> None:
            task = asyncio.ensure_future(self._refresher())
            try:
                await self.app.run_async()
            finally:
                task.cancel()

        asyncio.run(main())

    async def _refresher(self) -> None:
        waited = 0.0
        while True:
            await asyncio.sleep(_TICK)
            view = self.view
            waited += _TICK
            millis = frame.REFRESH_INTERVALS[view.interval][1]
            due = millis >= 0 and waited * 1000 >= max(millis, 100)  # draw at most every 100 ms, as Flink
            ended = view.retrieving and self.result.ended
            if view.poke or (view.retrieving and not view.paused and (due or ended)):
                view.poke = False
                waited = 0.0
                view.refresh()
                self.app.invalidate()
            if self.result.error or self.result.gone:
                self.app.exit()
                return

    # ---- keys -------------------------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        @bindings.add(Keys.Any)
        @bindings.add(Keys.Escape, eager=True)
        @bindings.add(Keys.ControlC)
        @bindings.add(Keys.ControlM)
        @bindings.add(Keys.Up)
        @bindings.add(Keys.Down)
        @bindings.add(Keys.Left)
        @bindings.add(Keys.Right)
        @bindings.add(Keys.End)
        @bindings.add(Keys.F5)
        @bindings.add(Keys.Backspace)
        def _(event: KeyPressEvent) -> None:
            key = event.key_sequence[0].key
            self.press(key if key != Keys.Any else event.data)

        return bindings

    def press(self, key: Key) -> None:
        """Hand a key to the view; leave, or switch to the other view, when it says so."""
        self.view.press(key)
        if self.view.leaving:
            self.app.exit()
        elif self.view.switching:
            self.view = switched(self.view)
        self.app.invalidate()


def switched(view: ResultView) -> ResultView:
    """The other view over the same result, paused if `view` was, with a fresh snapshot."""
    other = OTHER[type(view)](view.result, view.size)
    other.paused = view.paused
    other.refresh()
    return other
