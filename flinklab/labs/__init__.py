"""The built-in labs, each a plug-in package registered under the entry-point group `flinklab.labs` in
pyproject.toml exactly as a third-party lab would be (see flinklab.course.registry). Nothing here is shared
machinery: that is flinklab.course."""
