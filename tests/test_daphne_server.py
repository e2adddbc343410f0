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


WRITES_SERVER = """
import socket, sys, threading
from gateway.serving.daphne_server import use_uvloop
use_uvloop()
import daphne.server  # noqa: F401 - installs the reactor on its (uvloop) loop
from twisted.internet import protocol, reactor
from gateway.seams import twisted_seam
twisted_seam.write_on_the_next_turn()
twisted_seam.write_on_the_next_turn()  # twice: still Twisted's own writes underneath
twisted_seam.remember_server_addresses()
BIG = 8 * 1024 * 1024
seen = {}

class Answer(protocol.Protocol):
    def dataReceived(self, data):
        if data == b"small":
            self.transport.write(b"a" * 10)
            self.transport.writeSequence([b"b" * 10, b"c" * 10])
            seen["registered"] = self.transport in reactor.getWriters()
            reactor.callLater(0.05, lambda: seen.setdefault(
                "registered after", self.transport in reactor.getWriters()))
        elif data == b"big":
            self.transport.write(b"x" * BIG)
            self.transport.loseConnection()
        elif data == b"close":
            self.transport.loseConnection()
        elif data == b"boom":  # a send that raises: this connection ends, the others go on
            self.transport.doWrite = lambda: 1 / 0
            self.transport.write(b"lost")
        elif data == b"host":
            seen["host"] = self.transport.getHost() is self.transport.getHost()
            self.transport.write(b"%d" % self.transport.getHost().port)

def client(port):
    def ask(what, expect=None, slowly=False):
        # what the server answers: up to `expect` bytes, or all until it closes
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(what)
            got = b""
            while expect is None or len(got) < expect:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:  # an aborted connection
                    break
                if not chunk:
                    break
                got += chunk
                if slowly:
                    threading.Event().wait(0.001)
            return got
    try:
        print(ask(b"small", 30) == b"a" * 10 + b"b" * 10 + b"c" * 10)
        print(ask(b"big", slowly=True) == b"x" * BIG)
        print(ask(b"close") == b"")
        print(ask(b"boom") == b"")
        print(ask(b"host", len(str(port))) == str(port).encode())
    finally:
        reactor.callFromThread(reactor.stop)

factory = protocol.Factory.forProtocol(Answer)
port = reactor.listenTCP(0, factory, interface="127.0.0.1").getHost().port
threading.Thread(target=client, args=(port,), daemon=True).start()
reactor.run()
print(seen)
"""


def test_accepted_connections_write_on_the_next_turn_without_a_writability_watch() -> None:
    """Small writes go out on the loop's next turn, the reactor never watching the socket;
    a write larger than the socket takes is finished by the reactor, a connection closed
    after its writes sends every byte first, and one whose send raises is aborted; an
    accepted connection's address is read once."""
    lines = run_fresh(WRITES_SERVER)
    assert lines[:5] == ["True"] * 5
    assert lines[5] == "{'registered': False, 'registered after': False, 'host': True}"
