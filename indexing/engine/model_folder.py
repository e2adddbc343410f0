"""What a sentence-transformers model folder asks of the encoder, checked before loading.

Any BERT-family model saved by sentence-transformers can replace the bundled
all-MiniLM-L6-v2 (a bge-small or arctic-embed class retriever, say): `config.json` (a BERT
with GELU), `tokenizer.json`, `model.safetensors`, and optionally `modules.json` with its
pooling folder (CLS or mean pooling), `sentence_bert_config.json` (the longest input) and
`config_sentence_transformers.json` (prompts put before queries and passages). Whatever is
missing or not supported is said in one `ModelFolderError`, naming the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

REQUIRED_FILES = ("config.json", "tokenizer.json", "model.safetensors")
MODEL_FILES = ("model.safetensors", "tokenizer.json")  # without them no model: nothing to read
SUPPORTED_MODULES = {"Transformer", "Pooling", "Normalize"}
QUERY_PROMPTS = ("query",)
PASSAGE_PROMPTS = ("passage", "document", "corpus")


def model_folder_ready(folder: Path | None) -> bool:
    """Whether `folder` holds the model's weights and tokenizer (numpy & co. not needed)."""
    return folder is not None and all((folder / name).is_file() for name in MODEL_FILES)


class ModelFolderError(ValueError):
    """A model folder that cannot be loaded: what is missing or not supported."""


@dataclass(frozen=True)
class ModelFolder:
    path: Path
    config: dict
    pooling: str  # "cls" or "mean"
    max_tokens: int | None  # sentence_bert_config.json's max_seq_length, if given
    query_prompt: str
    passage_prompt: str


def read_model_folder(path: Path) -> ModelFolder:
    """The folder's model, checked; raises `ModelFolderError` saying what is wrong."""
    if not path.is_dir():
        raise ModelFolderError(f"{path}: no such folder")
    missing = [name for name in REQUIRED_FILES if not (path / name).is_file()]
    if missing:
        raise ModelFolderError(f"{path}: missing {', '.join(missing)}")
    config = _json(path, "config.json")
    if config.get("model_type") != "bert":
        raise ModelFolderError(
            f"{path}/config.json: model_type {config.get('model_type')!r} is not supported "
            "(only BERT-family encoders: model_type 'bert')"
        )
    if config.get("hidden_act", "gelu") != "gelu":
        raise ModelFolderError(
            f"{path}/config.json: hidden_act {config['hidden_act']!r} (gelu only)"
        )
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ModelFolderError(f"{path}/config.json: only absolute position embeddings")
    sbert = (
        _json(path, "sentence_bert_config.json")
        if (path / "sentence_bert_config.json").is_file()
        else {}
    )
    prompts = {}
    if (path / "config_sentence_transformers.json").is_file():
        prompts = _json(path, "config_sentence_transformers.json").get("prompts") or {}
    return ModelFolder(
        path=path,
        config=config,
        pooling=_pooling(path),
        max_tokens=int(sbert["max_seq_length"]) if "max_seq_length" in sbert else None,
        query_prompt=next((prompts[n] for n in QUERY_PROMPTS if prompts.get(n)), ""),
        passage_prompt=next((prompts[n] for n in PASSAGE_PROMPTS if prompts.get(n)), ""),
    )


def _pooling(path: Path) -> str:
    """ "cls" or "mean", from the pooling folder `modules.json` names (else `1_Pooling`)."""
    folder = path / "1_Pooling"
    if (path / "modules.json").is_file():
        modules = _json(path, "modules.json")
        kinds = {str(m.get("type", "")).rsplit(".", 1)[-1]: m for m in modules}
        unsupported = sorted(set(kinds) - SUPPORTED_MODULES)
        if unsupported:
            raise ModelFolderError(
                f"{path}/modules.json: module(s) {', '.join(unsupported)} not supported "
                "(Transformer, Pooling and Normalize only)"
            )
        if "Pooling" in kinds:
            folder = path / kinds["Pooling"].get("path", "1_Pooling")
    if not (folder / "config.json").is_file():
        return "mean"  # sentence-transformers' default
    modes = {
        key.removeprefix("pooling_mode_").removesuffix("_tokens").removesuffix("_token")
        for key, on in _json(folder, "config.json").items()
        if key.startswith("pooling_mode_") and on is True
    }
    if modes == {"cls"} or modes == {"mean"}:
        return modes.pop()
    raise ModelFolderError(
        f"{folder}/config.json: pooling {', '.join(sorted(modes)) or 'none'} not supported "
        "(CLS or mean pooling only)"
    )


def _optional_json(folder: Path, name: str) -> dict:
    return _json(folder, name) if (folder / name).is_file() else {}


def _json(folder: Path, name: str) -> dict | list:
    try:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ModelFolderError(f"{folder}/{name}: unreadable ({error})") from error
