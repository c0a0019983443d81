"""How the classifier head reads the encoder: the [CLS] row, or the mean of every row.

DistilBERT's own head reads the first row. all-MiniLM-L6-v2, whose weights the model
starts from, was trained as a sentence encoder with mean pooling, so its meaning is
in the mean of the rows, not in [CLS]: a linear probe on the raw encoder, trained on
the threat templates, separated threats written in other words from benign look-alikes
with ROC AUC 0.87 mean-pooled against 0.73 from [CLS] (docs/model.md). The choice is
stored in the checkpoint's config (``moderation_pooling``), so training, export and
the benchmarks' PyTorch rows all run the head the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import torch

Pooling = Literal["cls", "mean"]
POOLINGS: tuple[Pooling, ...] = ("cls", "mean")
CONFIG_KEY = "moderation_pooling"
# The pooling of a checkpoint saved before CONFIG_KEY was recorded.
UNRECORDED: Pooling = "cls"


def pooling_of(model: Any) -> Pooling:
    """The pooling a checkpoint was trained with ("cls" for checkpoints before the key)."""
    value = getattr(model.config, CONFIG_KEY, UNRECORDED)
    if value not in POOLINGS:
        raise ValueError(f"{CONFIG_KEY}={value!r} in the checkpoint's config: one of {POOLINGS}")
    pooling: Pooling = value
    return pooling


def set_pooling(model: Any, pooling: Pooling) -> None:
    """Record ``pooling`` in the model's config (saved with the checkpoint)."""
    if pooling not in POOLINGS:
        raise ValueError(f"unknown pooling {pooling!r}: one of {POOLINGS}")
    setattr(model.config, CONFIG_KEY, pooling)


def logits(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """A DistilBertForSequenceClassification's logits, read the way it was trained."""
    if pooling_of(model) == "cls":
        out: torch.Tensor = model(input_ids=input_ids, attention_mask=attention_mask).logits
        return out
    return head_logits(model, head_inputs(model, input_ids, attention_mask))


def head_inputs(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """The rows the head reads (one per text): the last block's [CLS] row, or the masked
    mean of its rows, as ``logits`` pools them."""
    hidden: torch.Tensor = model.distilbert(input_ids=input_ids, attention_mask=attention_mask)[0]
    return pooled(model, hidden, attention_mask)


def logits_and_hidden(
    model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor
) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    """``logits``, with every hidden state the encoder made on the way (the embeddings'
    output first, then each block's), in one pass."""
    out = model.distilbert(
        input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True
    )
    hidden: tuple[torch.Tensor, ...] = tuple(out.hidden_states)
    return head_logits(model, pooled(model, hidden[-1], attention_mask)), hidden


def pooled(model: Any, hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """The rows the head reads from the last block's hidden states, as ``logits`` pools."""
    if pooling_of(model) == "cls":
        return hidden[:, 0]
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    mean: torch.Tensor = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
    return mean


def head_logits(model: Any, rows: torch.Tensor) -> torch.Tensor:
    """The head alone on pooled rows (``head_inputs``): DistilBERT's pre-classifier, ReLU,
    dropout and classifier, as the model runs them."""
    import torch

    x = torch.nn.functional.relu(model.pre_classifier(rows))
    result: torch.Tensor = model.classifier(model.dropout(x))
    return result
