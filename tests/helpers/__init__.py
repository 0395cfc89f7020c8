"""The tests' shared helpers: environments, captured-output tools, stand-in servers, terminals, Docker fixtures.

Tests import these by name (`from helpers.env import free_port`); nothing imports from `conftest`.
"""
