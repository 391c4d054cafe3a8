import os
import socket

import pytest
from pytest_django.live_server_helper import LiveServer

# The port range this suite's servers use, so parallel runs on one machine do not collide.
PORTS = range(8100, 8200)


def free_port():
    for port in PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError(f"No free port in {PORTS.start}-{PORTS.stop - 1} for the live server.")


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server, on 127.0.0.1 in this suite's port range (unless
    --liveserver or DJANGO_LIVE_TEST_SERVER_ADDRESS says otherwise); stopped at the end."""
    address = request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
    server = LiveServer(address or f"127.0.0.1:{free_port()}")
    yield server
    server.stop()
