"""One placeholder syntax: converted at import, filled in from the environment at start."""

import pytest

from gateway.upstream_config.env_placeholders import convert, expand, missing_variables
from gateway.upstream_config.jsonc import loads

ENVIRON = {
    "HOME": "/home/alice",
    "EMPTY": "",
    "SECRET_KEY": "django-insecure-abc",
    "DATABASE_URL": "postgres://u:pw@db/lr",
    "REDIS_URL": "redis://:pw@cache",
    "LOCALROUTER_TOKEN": "lr_abc",
}


@pytest.mark.parametrize(
    ("written", "converted"),
    [
        ("${env:BRAVE_API_KEY}", "${BRAVE_API_KEY}"),
        ("Bearer ${env: NOTES_TOKEN }", "Bearer ${NOTES_TOKEN}"),
        ("${input:perplexity-key}", "${PERPLEXITY_KEY}"),
        ("${input:1st.key}", "${INPUT_1ST_KEY}"),
        ("${API_BASE_URL:-https://x}/mcp", "${API_BASE_URL:-https://x}/mcp"),
        ("no placeholder $HOME", "no placeholder $HOME"),
    ],
)
def test_client_spellings_become_the_one_syntax(written, converted):
    assert convert(written) == converted


@pytest.mark.parametrize(
    ("text", "value", "missing"),
    [
        ("${HOME}/data", "/home/alice/data", []),
        ("${UNSET:-fallback}", "fallback", []),
        ("${EMPTY:-fallback}", "fallback", []),
        ("${UNSET:-}", "", []),
        ("a ${UNSET} b", "a ${UNSET} b", ["UNSET"]),
        ("${SECRET_KEY}", "${SECRET_KEY}", ["SECRET_KEY"]),
        ("${DATABASE_URL:-none}", "none", []),
        (
            "${REDIS_URL}${LOCALROUTER_TOKEN}",
            "${REDIS_URL}${LOCALROUTER_TOKEN}",
            ["REDIS_URL", "LOCALROUTER_TOKEN"],
        ),
    ],
)
def test_expansion_uses_the_environment_but_never_the_gateways_own_settings(text, value, missing):
    assert expand(text, ENVIRON) == (value, missing)


def test_missing_variables_are_listed_once_and_sorted():
    texts = ["${B}", "${A} ${B}", "${HOME}", "${C:-c}"]
    assert missing_variables(texts, ENVIRON) == ["A", "B"]


def test_jsonc_comments_and_trailing_commas_are_read_and_strings_kept():
    text = '// head\n{"a": "x//y,]", /* b */ "b": [1, 2,],\n "c": {"d": "e\\" /*",\n// end\n},\n}'
    assert loads(text) == {"a": "x//y,]", "b": [1, 2], "c": {"d": 'e" /*'}}
