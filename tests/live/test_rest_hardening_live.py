"""The REST API of the cluster flinklab starts is narrowed by flinklab.flink.options.REST_OPTIONS (live, on the
session's local cluster): no jar upload or run, the Web UI without its submit page but with cancel, no
cross-origin reads.

What must keep working is tested where it is used: a job submitted through the gateway and cancelled by it
(JobClient.cancel, i.e. `PATCH /jobs/:id?mode=cancel`, as the Web UI's Cancel button sends it) in
tests/test_gateway_live.py::test_closing_a_streaming_query_cancels_its_job; the Web UI's views the gateway and
`flinklab status` read (/overview, /jobs/:id, /taskmanagers) throughout the live tests.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from helpers.resttools import REFUSED_UPLOAD, upload_jar

from flinklab.flink.options import REST_OPTIONS
from flinklab.settings import Settings

pytestmark = pytest.mark.live


def jobmanager_config(settings: Settings) -> dict[str, str]:
    rows = httpx.get(f"{settings.rest_url}/jobmanager/config", timeout=30.0).json()
    return {row["key"]: row["value"] for row in rows}


def test_the_cluster_runs_with_the_rest_options(flink_cluster: Settings) -> None:
    config = jobmanager_config(flink_cluster)
    assert {key: config.get(key) for key in REST_OPTIONS} == REST_OPTIONS


def test_a_jar_upload_is_refused_and_stores_nothing(flink_cluster: Settings) -> None:
    response = upload_jar(flink_cluster.rest_url)
    assert (response.status_code, response.json()) == REFUSED_UPLOAD
    # with jar submission on, the jar would be here (web.tmpdir/flink-web-<uuid>/flink-web-upload/<uuid>_tiny.jar)
    web_tmp = Path(jobmanager_config(flink_cluster)["web.tmpdir"])
    assert web_tmp.is_dir() and list(web_tmp.rglob("*.jar")) == []


def test_the_jar_endpoints_are_gone(flink_cluster: Settings) -> None:
    rest = flink_cluster.rest_url
    # GET falls through to the Web UI's static files, the other methods to the router
    listed = httpx.get(f"{rest}/jars", timeout=30.0)
    assert (listed.status_code, listed.json()) == (404, {"errors": ["Unable to load requested file /jars."]})
    run = httpx.post(f"{rest}/jars/tiny.jar/run", timeout=30.0)
    assert (run.status_code, run.json()) == (404, {"errors": ["Not found: /jars/tiny.jar/run"]})
    deleted = httpx.delete(f"{rest}/jars/tiny.jar", timeout=30.0)
    assert (deleted.status_code, deleted.json()) == (404, {"errors": ["Not found: /jars/tiny.jar"]})


def test_the_web_ui_has_no_submit_page_but_keeps_cancel(flink_cluster: Settings) -> None:
    features = httpx.get(f"{flink_cluster.rest_url}/config", timeout=30.0).json()["features"]
    assert (features["web-submit"], features["web-cancel"]) == (False, True)
    page = httpx.get(f"{flink_cluster.rest_url}/", timeout=30.0)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


def test_no_other_origin_may_read_the_rest_api(flink_cluster: Settings) -> None:
    response = httpx.get(f"{flink_cluster.rest_url}/jobs/overview", headers={"Origin": "http://example.com"},
                         timeout=30.0)
    assert response.status_code == 200
    # Flink's default is `*`: any web page the user opens could read the job ids (and GET yarn-cancel them)
    assert response.headers["access-control-allow-origin"] == REST_OPTIONS["web.access-control-allow-origin"]
