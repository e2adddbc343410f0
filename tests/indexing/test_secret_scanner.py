"""The secret scanner masks every credential of the corpus and none of its near-misses."""

import pytest

from indexing.engine.secrets.patterns import SHAPES
from indexing.engine.secrets.scanner import SecretScanner, mask_for
from tests.fixtures import secret_corpus

SCANNER = SecretScanner()
SECRETS = secret_corpus.secrets()
NEAR_MISSES = secret_corpus.near_misses()


def test_the_corpus_has_at_least_fifty_secrets_of_every_kind_and_fifty_near_misses():
    assert len(SECRETS) >= 50 and len(NEAR_MISSES) >= 50
    assert {item.kind for item in SECRETS} == {shape.kind for shape in SHAPES}
    assert secret_corpus.secrets() == SECRETS  # deterministic


@pytest.mark.parametrize("item", SECRETS, ids=lambda item: f"{item.kind}:{item.text[:30]}")
def test_every_corpus_secret_is_masked_with_its_kind_and_nothing_else_changes(item):
    masked = SCANNER.mask(item.text)
    assert masked.text == item.text.replace(item.secret, mask_for(item.kind, item.secret))
    assert dict(masked.counts) == {item.kind: 1}


@pytest.mark.parametrize("text", NEAR_MISSES, ids=lambda text: text[:40])
def test_no_near_miss_is_taken_for_a_secret(text):
    assert SCANNER.find(text) == []
    assert SCANNER.mask(text).text is text


def test_recall_is_total_and_false_positives_none_over_the_whole_corpus_at_once():
    document = "\n\n".join([*(item.text for item in SECRETS), *NEAR_MISSES])
    masked = SCANNER.mask(document)
    assert masked.counts.total() == len(SECRETS)
    assert not any(item.secret in masked.text for item in SECRETS)
    assert all(text in masked.text for text in NEAR_MISSES)


def test_a_mask_keeps_the_line_numbers_of_what_follows_and_no_part_of_the_secret():
    key = next(item for item in SECRETS if item.kind == "private key" and "\n" in item.secret)
    text = f"line 1\n{key.secret}\nlast line\n"
    masked = SCANNER.mask(text).text
    assert masked.splitlines().index("last line") == text.splitlines().index("last line")
    body = key.secret.splitlines()[1]
    assert not any(body[i : i + 8] in masked for i in range(len(body) - 8))
    assert masked.startswith("line 1\n[masked: private key]\n")


def test_a_value_after_its_key_name_is_masked_and_the_name_kept():
    item = next(item for item in SECRETS if item.kind == "aws secret key")
    assert SCANNER.mask(f"aws_secret_access_key = {item.secret}").text == (
        "aws_secret_access_key = [masked: aws secret key]"
    )


def test_a_token_prefix_inside_a_longer_word_is_not_a_token():
    token = next(item.secret for item in SECRETS if item.secret.startswith("ghp_"))
    assert SCANNER.find("x" + token) == []
    assert SCANNER.mask(f"({token})").text == "([masked: github token])"


def test_overlapping_shapes_give_one_mask():
    token = next(item.secret for item in SECRETS if item.secret.startswith("ghp_"))
    masked = SCANNER.mask(f"https://bot:{token}@github.com/acme/app.git")
    assert masked.text == "https://[masked: url credentials]@github.com/acme/app.git"
    assert dict(masked.counts) == {"url credentials": 1}


def test_a_private_key_block_cut_short_is_masked_to_its_end():
    text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0000TEST\nMIIEowIB"
    assert SCANNER.mask(text).text == "[masked: private key]\n\n"


def test_texts_without_any_shape_come_back_as_they_are():
    text = "plain text " * 10_000
    assert SCANNER.mask(text).text is text


def test_lone_surrogates_from_json_escapes_keep_every_position():
    token = next(item.secret for item in SECRETS if item.secret.startswith("ghp_"))
    text = f"\ud83d\ude00 \ud800 {token} \udfff"
    assert SCANNER.mask(text).text == "\ud83d\ude00 \ud800 [masked: github token] \udfff"


def test_a_text_with_many_places_of_one_prefix_is_masked_as_one_with_few():
    token = next(item.secret for item in SECRETS if item.secret.startswith("ghp_"))
    many = "\n".join(f"https://example.com/{n} x{token}" for n in range(40))
    text = f"{many}\npostgres://app:pw@db/x {token}\n"
    assert SCANNER.mask(text).text == (
        f"{many}\npostgres://[masked: url credentials]@db/x [masked: github token]\n"
    )
