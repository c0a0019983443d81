"""A model soup: the element-wise mean of the weights of fine-tunes from one start.

Fine-tunes of the same pretrained weights that differ only in a part of their data
stay close enough in weight space that their mean is a model of its own, often
better than either (Wortsman et al., "Model soups", ICML 2022). It costs nothing at
inference: one model, the same size and speed. docs/model.md has what it bought here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

WEIGHTS_FILE = "model.safetensors"


class SoupError(ValueError):
    """The checkpoints cannot be averaged: they are not fine-tunes of one model."""


def average_checkpoints(
    checkpoints: list[Path], out_dir: Path, shares: list[float] | None = None
) -> Path:
    """Write the mean of ``checkpoints``' weights to ``out_dir``; return it.

    ``shares``: each checkpoint's weight in the mean, summing to 1 (a point on the line
    between a start and its fine-tune, WiSE-FT: docs/model.md, rule 73); None: equal.
    Every other file (config, tokenizer) is the first checkpoint's. Raises SoupError
    when the checkpoints' tensors differ in names, shapes or dtypes, when a non-float
    tensor (an index buffer) differs between them, or when the shares are not weights.
    """
    from safetensors.numpy import load_file, save_file

    if not checkpoints:
        raise SoupError("no checkpoints to average")
    # Equal shares sum and divide once, as the soups of docs/model.md were made.
    weights, divisor = (
        ([1.0] * len(checkpoints), len(checkpoints)) if shares is None else (shares, 1)
    )
    if (
        len(weights) != len(checkpoints)
        or min(weights) < 0
        or abs(sum(weights) / divisor - 1) > 1e-9
    ):
        raise SoupError(
            f"shares {shares}: give one share of 0 or more per checkpoint, summing to 1"
        )
    states = [load_file(str(c / WEIGHTS_FILE)) for c in checkpoints]
    first = states[0]
    for path, state in zip(checkpoints[1:], states[1:], strict=True):
        if state.keys() != first.keys():
            odd = sorted(state.keys() ^ first.keys())[:3]
            raise SoupError(f"{path}: tensors {odd} are not in both {checkpoints[0]} and it")
        for name, tensor in state.items():
            if tensor.shape != first[name].shape or tensor.dtype != first[name].dtype:
                raise SoupError(
                    f"{path}: {name} is {tensor.dtype}{list(tensor.shape)}, "
                    f"{first[name].dtype}{list(first[name].shape)} in {checkpoints[0]}"
                )
    mean: dict[str, np.ndarray] = {}
    for name, tensor in first.items():
        if np.issubdtype(tensor.dtype, np.floating):
            total = sum(
                np.float32(w) * s[name].astype(np.float32)
                for w, s in zip(weights, states, strict=True)
            )
            mean[name] = (np.asarray(total, np.float32) / np.float32(divisor)).astype(tensor.dtype)
        else:
            if any(not np.array_equal(s[name], tensor) for s in states[1:]):
                raise SoupError(f"{name}: a non-float tensor differs between the checkpoints")
            mean[name] = tensor
    out_dir.mkdir(parents=True, exist_ok=True)
    for f in checkpoints[0].iterdir():
        if f.is_file() and f.name != WEIGHTS_FILE:
            shutil.copy2(f, out_dir / f.name)
    save_file(mean, str(out_dir / WEIGHTS_FILE), metadata={"format": "pt"})
    return out_dir
