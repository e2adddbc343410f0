"""Arguments kept by the audit trail (when asked for): secrets masked, size bounded."""

import json

import pytest

from gateway.operations.audit.arguments import CUT, bounded_arguments, masked_arguments


@pytest.mark.parametrize(
    ("arguments", "kept"),
    [
        ({"path": "/etc/hosts", "limit": 5}, {"path": "/etc/hosts", "limit": 5}),
        (
            {"api_key": "abc", "Password": "x", "token": 3},
            {"api_key": "***", "Password": "***", "token": "***"},
        ),
        ({"headers": {"Authorization": "Bearer abc"}}, {"headers": {"Authorization": "***"}}),
        ({"q": "use Bearer abcdefghijkl now"}, {"q": "use Bearer [redacted] now"}),
        ({"q": ["ghp_0123456789abcdef"]}, {"q": ["[redacted]"]}),
        ({"url": "https://me:pw@host/x?sig=1&a=2"}, {"url": "https://***@host/x?sig=***&a=2"}),
        ({"flags": [True, None, 1.5]}, {"flags": [True, None, 1.5]}),
        ({"x": float("nan")}, {"x": "nan"}),  # not JSON: stored as text
    ],
)
def test_secrets_are_masked_and_the_rest_kept(arguments, kept):
    assert masked_arguments(arguments) == kept
    assert masked_arguments(bounded_arguments(arguments)) == kept  # queued, then written


def test_the_queued_copy_is_bounded_and_holds_no_value_of_a_secret_name():
    queued = bounded_arguments({"password": "hunter2-hunter2", "text": "word " * 100_000})
    assert queued["password"] == "***"
    assert len(queued["text"]) < 4096 + 300 and queued["text"].endswith(CUT)


def test_a_large_argument_is_cut_to_the_bound():
    masked = masked_arguments({"text": "word " * 100_000, "more": list(range(10_000))}, limit=4096)
    assert len(json.dumps(masked)) < 4096 + 300
    assert masked["text"].endswith(CUT)


def test_a_secret_at_the_cut_is_masked_not_split():
    # The budget ends inside the token: it is masked whole, not cut into a shorter word
    # that no longer looks like a credential.
    text = "x " * 45 + "token=0123456789abcdefghij rest"
    masked = masked_arguments({"q": text}, limit=100)["q"]
    assert masked.endswith("token=[re" + CUT) and "012" not in masked
