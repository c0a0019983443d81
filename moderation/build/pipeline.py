"""The one command that rebuilds the shipped model from packages and data files.

convert MiniLM -> fine-tune -> export -> fuse -> int8 -> score validation splits
-> choose thresholds -> write model.json and MODEL_CARD.md. With ``soup``: fine-tune
twice (without and with the templates' second set of frames) and average the two
(tried, not shipped: docs/model.md). With ``seeds``: fine-tune the one recipe once per
seed and average those (a soup of seeds: docs/model.md).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from moderation.build import datasets
from moderation.build.card import write_card, write_refit_section
from moderation.build.evaluate import choose_thresholds, score_splits, split_metrics
from moderation.build.export import MANIFEST_FILE, MODEL_FILE, build, file_sha256
from moderation.build.quantize import SHIPPED_QUANT
from moderation.build.recover import recovered_from
from moderation.build.refit import (
    RowFit,
    ThresholdSource,
    head_refit_record,
    held_out_threshold,
    patch_checkpoint,
    refit_model,
)
from moderation.build.soup import SoupError, average_checkpoints
from moderation.build.train import (
    RECORDED_SET_FLAGS,
    TrainSettings,
    keep_epoch,
    student_block_list,
    teacher_refusal,
    train,
)
from moderation.classifier import Classifier
from moderation.config import DEFAULT_MODEL_NAME, ClassifierSettings
from moderation.cpu import cpu_info
from moderation.errors import ModerationError

log = logging.getLogger(__name__)


def training_sets(settings: TrainSettings) -> dict[str, bool]:
    """The optional training sets a model was built with, as model.json records them."""
    return {name: bool(getattr(settings, name)) for name in RECORDED_SET_FLAGS}


def every_block(start: Path) -> tuple[int, ...]:
    """The blocks of the checkpoint at ``start`` in order (its config.json's n_layers)."""
    return tuple(range(json.loads((start / "config.json").read_text())["n_layers"]))


def interpolated(tuned: Path, start: Path, start_share: float, work_dir: Path) -> Path:
    """``start_share`` of ``start``'s weights plus the rest of ``tuned``'s, a fine-tune of
    it (WiSE-FT: docs/model.md, rule 73), in ``work_dir/start-share``; the fine-tune's
    config and tokenizer."""
    try:
        return average_checkpoints(
            [tuned, start], work_dir / "start-share", [1 - start_share, start_share]
        )
    except SoupError as exc:
        raise ModerationError(f"--keep-start-share: {exc}") from None


def build_model(
    data_dir: Path,
    out_dir: Path,
    *,
    work_dir: Path,
    skip_training: bool,
    quant: str = SHIPPED_QUANT,
    soup: bool = False,
    seeds: tuple[int, ...] = (),
    refit: tuple[str, ...] = (),
    threat_threshold_on: ThresholdSource = "template-validation",
    **train_overrides: Any,
) -> dict[str, Any]:
    """Rebuild ``out_dir`` (model.onnx, tokenizer, model.json, MODEL_CARD.md).

    ``soup``: the mean of two fine-tunes, one on the templates and one on them plus
    their second set of frames (``TrainSettings.broad_templates``); else the first
    alone (the shipped recipe). ``seeds``: the mean of one fine-tune of the recipe per
    seed, each in ``work_dir/train-seed<N>``. ``refit``: labels whose classifier rows
    are fit again on the int8 model's features (build/refit.py); the fp32 scores are
    then of the checkpoint with the same rows. ``threat_threshold_on``: what the threat
    threshold is chosen on, the template validation fifth (whose frames are all trained
    on) or, with the threat row refit, its out-of-fold scores of frames held out whole
    (``refit.held_out_threshold``). ``train_overrides`` replace TrainSettings fields
    (epochs, learning_rate, ...).
    """
    try:
        settings = replace(TrainSettings(), **train_overrides)
    except ValueError as exc:
        raise ModerationError(f"training settings refused: {exc}") from None
    if settings.distil_from:
        blocks = student_block_list(settings.student_blocks)
        refused = teacher_refusal(Path(settings.distil_from), blocks, settings.pooling)
        if refused:
            raise ModerationError(f"--distil-from {settings.distil_from}: {refused}")
        if settings.keep_start_share and blocks != every_block(Path(settings.distil_from)):
            raise ModerationError(
                f"--keep-start-share with --student-blocks {settings.student_blocks}: a "
                "fine-tune lies on a line from its start only when it starts from every "
                "block of it in order (0,1,...)"
            )
    if soup and settings.broad_templates:
        raise ModerationError(
            "--soup averages a fine-tune without the second set of frames and one with it; "
            "--broad-templates trains one model with it: choose one"
        )
    if threat_threshold_on == "held-out-frames" and "threat" not in refit:
        raise ModerationError(
            "--threat-threshold-on held-out-frames reads the threat row's frame "
            "cross-validation: refit it (--refit-heads threat)"
        )
    if seeds and soup:
        raise ModerationError("--soup and --soup-seeds are two kinds of soup: choose one")
    if len(set(seeds)) != len(seeds) or len(seeds) == 1:
        raise ModerationError(f"--soup-seeds {list(seeds)}: give two or more distinct seeds")
    if seeds:
        ingredients = [(work_dir / f"train-seed{s}", replace(settings, seed=s)) for s in seeds]
    else:
        ingredients = [(work_dir / "train", settings)]
    if soup:
        ingredients.append((work_dir / "train-broad", replace(settings, broad_templates=True)))
    for train_dir, ingredient in ingredients:
        if skip_training:
            keep_epoch(train_dir, ingredient.keep)
        else:
            train(data_dir, train_dir, ingredient)
    reports = [
        {**json.loads((d / "training.json").read_text()), "broad_templates": i.broad_templates}
        for d, i in ingredients
    ]
    souped = len(ingredients) > 1
    training = {**reports[0], "soup": reports if souped else []}
    if souped:
        best = average_checkpoints([d / "best" for d, _ in ingredients], work_dir / "soup")
    else:
        best = work_dir / "train" / "best"
    if settings.keep_start_share:
        best = interpolated(best, Path(settings.distil_from), settings.keep_start_share, work_dir)
    manifest = build(
        best,
        out_dir,
        name=DEFAULT_MODEL_NAME,
        work_dir=work_dir / "onnx",
        nfkc=True,
        quant=quant,
        drop_leading_mentions=settings.drop_leading_mentions,
        space_glued_symbols=settings.space_glued_symbols,
    )
    labels = manifest["labels"]
    # What a later `moderation refit-heads` must train on to match the fine-tune.
    manifest["training_sets"] = training_sets(settings)
    start = recovered_from(settings.distil_from)
    if start:
        # A continued fine-tune of a built file (rule 71): its card names the start.
        manifest["started_from"] = start
    if settings.keep_start_share:
        # What was exported is a point between the start and the fine-tune (rule 73).
        manifest["start_share"] = settings.keep_start_share
    fits: list[RowFit] = []
    if refit:
        _, columns, fits = refit_model(
            out_dir,
            data_dir,
            refit=refit,
            chitchat_train=settings.chitchat_train,
            chitchat_val=settings.chitchat_val,
            seed=TrainSettings().seed,
            evasion_fraction=settings.evasion_fraction,
            recipe=settings.sets,
            typo_fraction=settings.typo_copies,
        )
        best = patch_checkpoint(best, work_dir / "refit", columns)
        sha = file_sha256(out_dir / MODEL_FILE)
        manifest["head_refit"] = head_refit_record(
            manifest["id"], fits, settings.sets, settings.typo_copies
        )
        manifest.update(id=f"{manifest['name']}@{sha[:12]}", sha256=sha)
    classifier = Classifier(ClassifierSettings(model_dir=out_dir, threads=2))
    # The validation samples stay those of the default seed whatever seed trained the
    # model, so that builds of different seeds are judged on the same texts.
    val_seed = TrainSettings().seed
    # A refit head trained on these sets: their held-out fifth is in its threshold split.
    val_sets = settings.sets
    if refit:
        val_sets = replace(val_sets, counterfactuals=True, broad_templates=True)
    splits = datasets.validation_sets(data_dir, settings.chitchat_val, val_seed, val_sets)
    splits["chitchat-test"] = datasets.chitchat("test", settings.chitchat_val, val_seed)
    scored = score_splits(best, classifier, splits)
    thresholds = choose_thresholds(scored, labels)
    if threat_threshold_on == "held-out-frames":
        (threat_fit,) = [f for f in fits if f.label == "threat"]
        benign = scored["chitchat"].int8[:, labels.index("threat")]
        thresholds["threat"] = held_out_threshold(threat_fit, benign)
        manifest["head_refit"]["rows"]["threat"]["threshold_chosen_on"] = (
            "out-of-fold scores of template frames held out whole"
        )
    # fp32 judged at thresholds of its own, by the same rule (the template validation
    # fifth for threat), so that the card's int8 - fp32 gap is not the selection's.
    fp32_thresholds = choose_thresholds(scored, labels, "fp32")
    metrics = split_metrics(scored, thresholds, labels, fp32_thresholds)
    manifest["thresholds"] = thresholds
    (out_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    (work_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))
    write_card(out_dir, manifest, training, metrics)
    if refit:
        write_refit_section(out_dir, manifest, cpu_info().kind)
    log.info("thresholds %s", thresholds)
    return metrics
