"""int8 quantization of the fused fp32 graph, by named setting.

ONNX Runtime's quantization guide warns that on CPUs without VNNI the u8s8 multiply-add
(VPMADDUBSW) can saturate, and suggests reduce_range, U8U8 or per-channel weights;
issue 14 adds static (calibrated) activation scales and keeping chosen nodes in fp32.
Every setting here is measured against fp32 on the validation splits, and timed, by
`moderation bench quant` (docs/benchmarks.md); the build uses ``SHIPPED_QUANT``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from moderation.errors import ModerationError

# The slices classifier_row_only() inserts: nodes after them work on one row.
_ROW_ONLY_PREFIX = "ClassifierRowOnly_"


class QuantizeError(ModerationError):
    """A quantization setting cannot be applied as asked."""


@dataclass(frozen=True)
class QuantSetting:
    """One way to turn the fp32 graph into int8.

    weights: "s8" or "u8". per_channel: one weight scale per output column.
    reduce_range: 7-bit weights (the guide's remedy for saturation). fp32_tail: the
    single-row tail after the last attention (that block's projection and
    feed-forward, the classifier head) stays fp32: on one row its activation scale
    comes from 384 numbers, and its int8 saves little time. static: the feed-forward
    and projection MatMuls get activation scales calibrated once on training text
    instead of measured per message (the attention stays dynamic: ONNX Runtime has no
    static int8 attention).
    """

    weights: str = "s8"
    per_channel: bool = False
    reduce_range: bool = False
    fp32_tail: bool = False
    static: bool = False

    def describe(self) -> str:
        """What the model card and manifest say about the quantization."""
        extras = [k.replace("_", "-") for k in ("per_channel", "reduce_range") if getattr(self, k)]
        kind = "static-int8 MatMuls, dynamic-int8 attention" if self.static else "dynamic-int8"
        tail = "; the single-row tail fp32" if self.fp32_tail else ""
        return f"{kind} ({', '.join([f'weights {self.weights}', *extras])}, activations u8{tail})"


QUANT_SETTINGS: dict[str, QuantSetting] = {
    "s8": QuantSetting(),
    "s8-per-channel": QuantSetting(per_channel=True),
    "s8-reduce-range": QuantSetting(reduce_range=True),
    "s8-per-channel-reduce-range": QuantSetting(per_channel=True, reduce_range=True),
    "u8": QuantSetting(weights="u8"),
    "s8-fp32-tail": QuantSetting(fp32_tail=True),
    "s8-per-channel-fp32-tail": QuantSetting(per_channel=True, fp32_tail=True),
    "static-s8": QuantSetting(static=True),
    "static-s8-per-channel": QuantSetting(per_channel=True, static=True),
}

# Shipped: per-channel s8 weights, u8 activations. Measured on AVX2 (docs/benchmarks.md,
# bench quant), per-tensor s8 was the setting furthest from fp32 (ConvAbuse -1.2, HatEval
# -0.9 macro-F1 points); per-channel keeps every validation split within 0.5 points of
# fp32 at 1.03-1.13x the time. It shipped once a held-out behaviour suite large enough
# to judge it (docs/model.md) found it no worse than per-tensor. U8U8 would give up
# AVX-512 VNNI's native u8s8 path; static settings are slower here (bench quant only).
SHIPPED_QUANT = "s8-per-channel"

Feed = dict[str, np.ndarray]


def setting(name: str) -> QuantSetting:
    """The setting called ``name``, or a QuantizeError listing the known ones."""
    try:
        return QUANT_SETTINGS[name]
    except KeyError:
        known = ", ".join(QUANT_SETTINGS)
        raise QuantizeError(f"unknown int8 setting {name!r}: one of {known}") from None


def tail_nodes(model: Any) -> list[str]:
    """Names of the MatMul/Gemm nodes after classifier_row_only()'s slices."""
    nodes = list(model.graph.node)
    starts = [i for i, n in enumerate(nodes) if n.name.startswith(_ROW_ONLY_PREFIX)]
    if not starts:
        raise QuantizeError("no classifier-row slices in the graph: nothing is a one-row tail")
    names = []
    for n in nodes[max(starts) + 1 :]:
        if n.op_type == "MatMul":
            names.append(n.name)
        elif n.op_type == "Gemm":
            # The quantizer first rewrites a Gemm as MatMul + Add named <gemm>_MatMul.
            names += [n.name, f"{n.name}_MatMul"]
    return names


class _Feeds:
    """onnxruntime's CalibrationDataReader protocol over a list of feeds."""

    def __init__(self, feeds: Iterable[Feed]) -> None:
        self._it: Iterator[Feed] = iter(feeds)

    def get_next(self) -> Feed | None:
        return next(self._it, None)


def quantize(
    src: Path,
    dst: Path,
    name: str = SHIPPED_QUANT,
    calibration: Iterable[Feed] | None = None,
) -> None:
    """Quantize ``src`` (the fused fp32 graph) into ``dst`` by the setting ``name``.

    ``calibration``: model inputs from training text, required by static settings
    (never validation or test text: the scales are part of the model).
    """
    import onnx
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )

    s = setting(name)
    weight_type = QuantType.QInt8 if s.weights == "s8" else QuantType.QUInt8
    exclude = tail_nodes(onnx.load(str(src), load_external_data=False)) if s.fp32_tail else []
    # Shape inference cannot see through the fused com.microsoft ops.
    extra: dict[str, Any] = {"DefaultTensorType": onnx.TensorProto.FLOAT}

    def dynamic(graph: Path, op_types: list[str]) -> None:
        quantize_dynamic(
            str(graph),
            str(dst),
            weight_type=weight_type,
            per_channel=s.per_channel,
            reduce_range=s.reduce_range,
            op_types_to_quantize=op_types,
            nodes_to_exclude=exclude,
            extra_options=extra,
        )

    if not s.static:
        dynamic(src, ["MatMul", "Attention", "Gemm"])
        return
    if calibration is None:
        raise QuantizeError(f"int8 setting {name!r} is static: it needs calibration inputs")
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory() as tmp:
        typed, half = Path(tmp) / "typed.onnx", Path(tmp) / "static.onnx"
        # The calibrator records only tensors whose type it knows; ONNX's own shape
        # inference stops at the fused com.microsoft ops, ORT's symbolic one does not.
        quant_pre_process(str(src), str(typed), skip_optimization=True)
        quantize_static(
            str(typed),
            str(half),
            _Feeds(calibration),
            quant_format=QuantFormat.QOperator,
            op_types_to_quantize=["MatMul"],
            per_channel=s.per_channel,
            reduce_range=s.reduce_range,
            activation_type=QuantType.QUInt8,
            weight_type=weight_type,
            nodes_to_exclude=exclude,
            calibrate_method=CalibrationMethod.MinMax,
            extra_options=extra,
        )
        # ONNX Runtime has no static int8 attention: the attention stays dynamic.
        dynamic(half, ["Attention", "Gemm"])
