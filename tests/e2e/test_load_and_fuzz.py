"""Small runs of benchmarks/load.py and benchmarks/fuzz.py (the full runs are scripts)."""

import asyncio

import pytest

from benchmarks import fuzz, load


@pytest.mark.parametrize("era", load.ERAS)
def test_a_small_load_run_answers_every_call_with_its_own_reply(live, era):
    factory = load.client_factory(live.url, live, [live.tokens["alice"]])
    result = asyncio.run(load.run_era(factory, era, sessions=4, calls=5, tool="echohttp__echo"))
    assert (result.calls, result.errors, result.mismatched) == (20, 0, 0)


def test_a_small_fuzz_run_gets_no_5xx_no_hang_and_no_parser_crash(live):
    cases = fuzz.generate(400, seed=7)
    outcomes = fuzz.run_all(live, live.tokens["alice"], cases)
    assert sum(outcomes.values()) == 400
    assert fuzz.failures(outcomes) == 0, fuzz.table(outcomes)
    assert {kind for kind, _ in outcomes} >= {"envelope", "import file", "tools/call IndexSearch"}
