"""The up/down use cases on top of the backends, the gateway and the client: bring_up/bring_down (lifecycle.py),
backend selection and status (select.py), the lab data (provision.py, dataprobe.py), the gateway process
(gateway.py, serve_gateway.py) and the client as this machine's environment connects it (client.py)."""
