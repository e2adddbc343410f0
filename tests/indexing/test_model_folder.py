"""Bring your own model: a sentence-transformers BERT folder other than the bundled one loads
with its pooling and prompts; a folder that cannot be loaded says what is wrong."""

import json
import logging

import pytest

for _package in ("numpy", "safetensors", "tokenizers"):
    pytest.importorskip(_package, reason=f"{_package} (optional, for embeddings) not installed")

import numpy as np  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402
from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors  # noqa: E402
from tokenizers.models import WordPiece  # noqa: E402

from indexing.engine import hybrid  # noqa: E402
from indexing.engine.embeddings import Embedder  # noqa: E402
from indexing.engine.model_folder import ModelFolderError, read_model_folder  # noqa: E402

HIDDEN, LAYERS, HEADS, INNER, POSITIONS = 32, 2, 4, 64, 64
WORDS = ["open", "read", "write", "a", "the", "file", "folder", "list", "make", "new", "query"]
WORDS += ["passage", ":", "compressed"]
MODULES = "sentence_transformers.models"
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]


def _weights(rng) -> dict[str, np.ndarray]:
    def w(*shape):
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    weights = {
        "embeddings.word_embeddings.weight": w(len(VOCAB), HIDDEN),
        "embeddings.position_embeddings.weight": w(POSITIONS, HIDDEN),
        "embeddings.token_type_embeddings.weight": w(2, HIDDEN),
        "embeddings.LayerNorm.weight": np.ones(HIDDEN, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(HIDDEN, np.float32),
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        for name in ("attention.self.query", "attention.self.key", "attention.self.value"):
            weights[f"{p}.{name}.weight"], weights[f"{p}.{name}.bias"] = (
                w(HIDDEN, HIDDEN),
                w(HIDDEN),
            )
        weights[f"{p}.attention.output.dense.weight"] = w(HIDDEN, HIDDEN)
        weights[f"{p}.attention.output.dense.bias"] = w(HIDDEN)
        weights[f"{p}.intermediate.dense.weight"] = w(INNER, HIDDEN)
        weights[f"{p}.intermediate.dense.bias"] = w(INNER)
        weights[f"{p}.output.dense.weight"] = w(HIDDEN, INNER)
        weights[f"{p}.output.dense.bias"] = w(HIDDEN)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            weights[f"{p}.{norm}.weight"] = np.ones(HIDDEN, np.float32)
            weights[f"{p}.{norm}.bias"] = np.zeros(HIDDEN, np.float32)
    return {f"bert.{name}": array for name, array in weights.items()}  # as some models save it


def _tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(WordPiece({word: i for i, word in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    return tokenizer


@pytest.fixture
def small_bert(tmp_path):
    """A BERT of random weights saved as sentence-transformers saves a model: CLS pooling, a
    query prompt, no passage prompt."""
    folder = tmp_path / "small-bert"
    (folder / "1_Pooling").mkdir(parents=True)
    config = {
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": HIDDEN,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "intermediate_size": INNER,
        "max_position_embeddings": POSITIONS,
        "vocab_size": len(VOCAB),
        "layer_norm_eps": 1e-12,
    }
    files = {
        "config.json": config,
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": f"{MODULES}.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": f"{MODULES}.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": f"{MODULES}.Normalize"},
        ],
        "1_Pooling/config.json": {
            "word_embedding_dimension": HIDDEN,
            "pooling_mode_cls_token": True,
            "pooling_mode_mean_tokens": False,
            "pooling_mode_max_tokens": False,
        },
        "config_sentence_transformers.json": {
            "prompts": {"query": "query : ", "document": ""},
            "default_prompt_name": None,
        },
        "sentence_bert_config.json": {"max_seq_length": 32, "do_lower_case": False},
    }  # fmt: skip
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content))
    _tokenizer().save(str(folder / "tokenizer.json"))
    save_file(_weights(np.random.default_rng(39)), str(folder / "model.safetensors"))
    return folder


def _states(model: Embedder, text: str) -> np.ndarray:
    """The encoder's last hidden states for one text, alone (no padding)."""
    ids = np.array([model.tokenizer.encode(text).ids], np.int64)
    return model._forward(ids, np.ones(ids.shape, np.float32))[0]


def test_a_small_bert_loads_and_embeds_with_cls_pooling_and_its_query_prompt(small_bert):
    model = Embedder.from_path(small_bert)
    assert (model.dimensions, model.pooling, model.prompts) == (HIDDEN, "cls", ("", "query : "))
    assert model.max_tokens == 32  # sentence_bert_config.json's, below the 64 positions
    texts = ["open the compressed file", "list a folder"]
    passages = model.embed(texts)
    assert passages.shape == (2, HIDDEN)
    for text, vector in zip(texts, passages, strict=True):  # the [CLS] state, unit length
        cls = _states(model, text)[0]
        np.testing.assert_allclose(vector, cls / np.linalg.norm(cls), atol=1e-5)
        mean = _states(model, text).mean(axis=0)
        assert not np.allclose(vector, mean / np.linalg.norm(mean), atol=1e-3)  # not mean pooled
    queries, tokens = model.embed_with_tokens(texts, query=True)
    for text, vector, words in zip(texts, queries, tokens, strict=True):  # after the prompt
        cls = _states(model, "query : " + text)[0]
        np.testing.assert_allclose(vector, cls / np.linalg.norm(cls), atol=1e-5)
        assert words.ids == model.tokenizer.encode(text, add_special_tokens=False).ids
    assert not np.allclose(queries, passages, atol=1e-3)


def test_the_gateway_loads_a_configured_folder_and_ranks_a_catalog_with_it(
    small_bert, fresh_process
):
    model = hybrid.embedder(small_bert)
    assert model is not None and model.pooling == "cls"
    documents = [
        ("mcp/f/tool/f__open", "f__open\n\nopen a file"),
        ("mcp/f/tool/f__list", "f__list\n\nlist a folder"),
    ]
    ranking = hybrid.CatalogVectors(documents, model).rankings(["open file"], None)[0]
    assert sorted(ranking) == sorted(label for label, _ in documents)


@pytest.mark.parametrize("missing", ["tokenizer.json", "model.safetensors", "config.json"])
def test_a_folder_lacking_a_file_says_which(small_bert, missing):
    (small_bert / missing).unlink()
    with pytest.raises(ModelFolderError, match=f"small-bert: missing {missing}"):
        Embedder.from_path(small_bert)


def test_unsupported_pooling_model_type_or_module_is_named(small_bert):
    pooling = small_bert / "1_Pooling" / "config.json"
    pooling.write_text(json.dumps({"pooling_mode_max_tokens": True}))
    with pytest.raises(ModelFolderError, match="pooling max not supported"):
        read_model_folder(small_bert)
    pooling.write_text(json.dumps({"pooling_mode_mean_tokens": True}))
    assert read_model_folder(small_bert).pooling == "mean"
    modules = json.loads((small_bert / "modules.json").read_text())
    modules.append(
        {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}
    )
    (small_bert / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(ModelFolderError, match=r"module\(s\) Dense not supported"):
        read_model_folder(small_bert)
    (small_bert / "modules.json").unlink()
    config = json.loads((small_bert / "config.json").read_text())
    (small_bert / "config.json").write_text(json.dumps({**config, "model_type": "xlm-roberta"}))
    with pytest.raises(ModelFolderError, match="model_type 'xlm-roberta' is not supported"):
        read_model_folder(small_bert)


def test_weights_that_do_not_match_the_config_are_named(small_bert):
    config = json.loads((small_bert / "config.json").read_text())
    (small_bert / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 3}))
    with pytest.raises(
        ModelFolderError, match="no weight encoder.layer.2.attention.self.query.weight"
    ):
        Embedder.from_path(small_bert)


def test_a_folder_the_gateway_cannot_load_leaves_keyword_search_and_a_clear_warning(
    small_bert, fresh_process, caplog
):
    (small_bert / "1_Pooling" / "config.json").write_text('{"pooling_mode_max_tokens": true}')
    caplog.set_level(logging.WARNING, logger=hybrid.__name__)
    assert hybrid.embedder(small_bert) is None
    assert "hybrid search unavailable: embedding model: " in caplog.text
    assert "pooling max not supported (CLS or mean pooling only)" in caplog.text


def test_a_folder_without_a_model_leaves_another_folders_model_loadable(
    small_bert, tmp_path, fresh_process
):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert hybrid.embedder(empty) is None and hybrid.embedder(None) is None
    assert hybrid.embedder_unavailable(empty)
    assert hybrid.loaded_embedder(small_bert) is None  # not loaded yet
    model = hybrid.embedder(small_bert)
    assert model is not None and hybrid.loaded_embedder(small_bert) is model
    assert not hybrid.embedder_unavailable(small_bert)
