"""`manage.py serve` runs daphne on uvloop, with Twisted's Content-Type parse memoised and one
access log (daphne's)."""

from tests.fresh_interpreter import run_fresh


def test_daphnes_reactor_runs_on_uvloop_when_the_policy_comes_first() -> None:
    lines = run_fresh(
        "from gateway.serving.daphne_server import use_uvloop\n"
        "print(use_uvloop())\n"
        "import daphne.server\n"
        "from twisted.internet import reactor\n"
        "print(type(daphne.server.twisted_loop).__module__)\n"
        "print(reactor._asyncioEventloop is daphne.server.twisted_loop)\n"
    )
    assert lines == ["True", "uvloop", "True"]


def test_django_starts_without_daphnes_server_so_serve_can_choose_the_loop_first() -> None:
    """`manage.py serve` runs daphne in the process Django started in (no second one)."""
    lines = run_fresh(
        "import django, sys\n"
        "django.setup()\n"
        "from gateway.management.commands import serve\n"
        "print('daphne.server' in sys.modules, 'twisted.internet.reactor' in sys.modules)\n"
    )
    assert lines == ["False False"]


def test_daphne_alone_runs_on_asyncios_own_loop() -> None:
    lines = run_fresh("import daphne.server\nprint(type(daphne.server.twisted_loop).__module__)")
    assert lines == ["asyncio.unix_events"]


def test_the_memoised_content_type_parse_answers_as_twisteds_own() -> None:
    lines = run_fresh(
        "from twisted.web import http\n"
        "original = http._parseContentType\n"
        "from gateway.seams.twisted_seam import memoise_content_type_parse\n"
        "memoise_content_type_parse()\n"
        "memoise_content_type_parse()  # twice: still one cache, not a cache of a cache\n"
        "samples = [b'application/json', b'Application/JSON; charset=utf-8',\n"
        "           b'text/event-stream', b'multipart/form-data; boundary=x', b'', b'bogus']\n"
        "print(all(http._parseContentType(s) == original(s) for s in samples * 2))\n"
        "print(http._parseContentType.__wrapped__ is original)\n"
        "print(http._parseContentType.cache_info().hits)\n"
    )
    assert lines == ["True", "True", "6"]


def test_twisted_writes_no_access_line_of_its_own_beside_daphnes() -> None:
    """Twisted's line names the target unmasked; daphne's masked line is the one kept."""
    script = (
        "import io\n"
        "from twisted.web import http\n"
        "from twisted.web.test.requesthelper import DummyChannel\n"
        "from daphne.http_protocol import HTTPFactory\n"
        "def line_for(factory):\n"
        "    factory._logFile = io.StringIO()\n"
        "    request = http.Request(DummyChannel(), False)\n"
        "    request.method, request.uri = b'POST', b'/mcp?token=lr_S'\n"
        "    request.clientproto = b'HTTP/1.1'\n"
        "    request.code, request.sentLength = 200, 2\n"
        "    factory.log(request)\n"
        "    return factory._logFile.getvalue()\n"
        "print('token=lr_S' in line_for(HTTPFactory(None)))\n"
        "from gateway.serving.daphne_access_log import one_access_log\n"
        "one_access_log()\n"
        "print(repr(line_for(HTTPFactory(None))))\n"
    )
    assert run_fresh(script) == ["True", "''"]
