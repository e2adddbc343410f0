"""`manage.py serve` runs daphne on uvloop, with Twisted's Content-Type parse memoised."""

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
