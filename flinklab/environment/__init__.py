"""What the up/down use cases (flinklab/usecases/cluster.py) stand on: backend selection and status (select.py), the
lab data (provision.py, dataprobe.py), the gateway process (gateway.py: GatewayProcess, a backend's lifecycle shape;
serve_gateway.py) and the client as this machine's environment connects it (client.py: LabSqlClient)."""
