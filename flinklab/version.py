"""The one pinned Flink version; everything else derives from it."""

FLINK_VERSION = "2.2.1"
#: The official image for the Docker backend (same Flink as the PyPI client: they must match).
DEFAULT_FLINK_IMAGE = f"flink:{FLINK_VERSION}-scala_2.12-java17"
#: The major.minor that plan JSON files carry in "flinkVersion".
FLINK_MINOR = ".".join(FLINK_VERSION.split(".")[:2])
