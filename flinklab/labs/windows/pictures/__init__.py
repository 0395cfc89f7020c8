"""The windows lab's pictures: its orders and windows on an event-time axis (the model in `figure`, drawn for the
terminal by `term` and as SVG by `svg`), the learner's saved windows against the expected ones."""
