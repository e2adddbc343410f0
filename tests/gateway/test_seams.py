"""The seams to libraries (gateway/seams/): the installed releases have every private name they
use, and a release without one fails with an error naming the seam, the library, its version
and the name. `make upgrade-check` runs these against the newest releases the pins allow."""

from importlib import metadata
from types import ModuleType

import pytest
import twisted.web as twisted_web
import twisted.web.http  # noqa: F401 - the module the seam patches, loaded as daphne loads it
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from gateway.seams import mcp_sdk_seam as mcp_sdk
from gateway.seams import twisted_seam
from gateway.seams.private_names import SeamBroken


@pytest.fixture(autouse=True)
def checked_afresh():
    """Each test sees the seams checked anew, and leaves them so."""
    mcp_sdk._check_once.cache_clear()
    yield
    mcp_sdk._check_once.cache_clear()


def test_the_installed_libraries_have_every_private_name_the_seams_use() -> None:
    mcp_sdk.check()
    twisted_seam.check()


def test_an_sdk_without_a_private_method_fails_naming_the_seam(monkeypatch) -> None:
    monkeypatch.delattr(Server, "_handle_discover")
    with pytest.raises(SeamBroken) as broken:
        mcp_sdk.check()
    message = str(broken.value)
    version = metadata.version("mcp")
    assert message.startswith(f"gateway.seams.mcp_sdk_seam: mcp {version} no longer")
    assert "mcp.server.lowlevel.server.Server._handle_discover" in message


def test_an_sdk_that_stops_setting_a_private_attribute_fails_at_first_use(monkeypatch) -> None:
    def init_without_instances(self, app, **options) -> None:
        self.app = app

    monkeypatch.setattr(StreamableHTTPSessionManager, "__init__", init_without_instances)
    with pytest.raises(SeamBroken, match=r"^gateway\.seams\.mcp_sdk_seam: mcp ") as broken:
        mcp_sdk.hosts_session(StreamableHTTPSessionManager(Server("x")), "session")
    assert "StreamableHTTPSessionManager()._server_instances" in str(broken.value)


def test_a_twisted_without_its_content_type_parse_fails_naming_the_seam(monkeypatch) -> None:
    # Twisted wraps the module in a proxy that cannot drop names: a stand-in without it.
    monkeypatch.setattr(twisted_web, "http", ModuleType("twisted.web.http"))
    with pytest.raises(SeamBroken) as broken:
        twisted_seam.memoise_content_type_parse()
    message = str(broken.value)
    assert message.startswith(
        f"gateway.seams.twisted_seam: Twisted {metadata.version('Twisted')} no longer has "
        "twisted.web.http._parseContentType"
    )
