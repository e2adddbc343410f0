"""indexing.engine.token_match: each request token's best match among an entry's tokens,
weighted by how rare the token is among the entries. Synthetic token vectors: a token's
vector is its concept's axis, so two tokens of one concept (`folder`, `directory`) meet."""

import pytest

np = pytest.importorskip("numpy", reason="numpy (optional, for embeddings) not installed")

from indexing.engine.embeddings import TokenVectors  # noqa: E402
from indexing.engine.token_match import TokenMatch, entry_tokens  # noqa: E402

# token id -> concept axis
CONCEPT = {1: 0, 2: 0, 3: 1, 4: 2, 5: 3, 6: 4}  # 1 folder, 2 directory, 3 create, 4 the, 5 page
WORDS = {"folder": 1, "directory": 2, "create": 3, "the": 4, "page": 5, "delete": 6}


def tokens(*words: str) -> TokenVectors:
    ids = [WORDS[word] for word in words]
    vectors = np.zeros((len(ids), 8), np.float32)
    for row, token in enumerate(ids):
        vectors[row, CONCEPT[token]] = 1.0
    return TokenVectors(ids, vectors)


@pytest.fixture
def match() -> TokenMatch:
    entries = [
        tokens("create", "the", "directory"),  # 0
        tokens("create", "the", "page"),  # 1
        tokens("delete", "the", "directory"),  # 2
        TokenVectors([], np.zeros((0, 8), np.float32)),  # 3: nothing to match
    ]
    return TokenMatch([entry_tokens(entry) for entry in entries])


def test_a_request_token_meets_a_token_of_the_same_meaning(match) -> None:
    scores = match.scores(tokens("create", "the", "folder"), [0, 1, 2, 3])
    assert scores[0] == pytest.approx(1.0, abs=0.01)  # every token met, folder by directory
    # "folder" is in no entry (rare: weighs most) and meets "directory"; "create" is in two
    assert scores[0] > scores[2] > scores[1] > scores[3] == pytest.approx(0.0, abs=0.01)


def test_a_token_most_entries_hold_weighs_less_than_a_rare_one(match) -> None:
    scores = match.scores(tokens("the", "page"), [0, 1, 2])
    assert scores[1] == pytest.approx(1.0, abs=0.01)
    assert scores[0] == pytest.approx(scores[2]) and scores[0] < 0.4  # met "the" only


def test_scores_follow_the_entries_asked_for(match) -> None:
    request = tokens("create", "folder")
    every = match.scores(request, [0, 1, 2, 3])
    np.testing.assert_allclose(match.scores(request, [2, 0]), every[[2, 0]], atol=1e-6)
    assert match.scores(request, []).shape == (0,)
    assert TokenMatch([]).scores(request, []).shape == (0,)


def test_it_counts_the_bytes_it_holds(match) -> None:
    # 10 token rows (3 + 3 + 3 + the blank one) of 8 int8 values and a float32 scale each
    assert match.nbytes == 10 * 8 + 10 * 4
