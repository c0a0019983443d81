"""The named int8 settings: what they say they are, and what the build refuses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from moderation.build.quantize import (
    QUANT_SETTINGS,
    SHIPPED_QUANT,
    QuantizeError,
    QuantSetting,
    setting,
)
from moderation.cli import main


def test_the_shipped_setting_is_dynamic_per_channel_s8() -> None:
    s = setting(SHIPPED_QUANT)
    assert s == QuantSetting(weights="s8", per_channel=True)
    assert s.describe() == "dynamic-int8 (weights s8, per-channel, activations u8)"


def test_descriptions_name_every_choice() -> None:
    assert setting("s8-per-channel-fp32-tail").describe() == (
        "dynamic-int8 (weights s8, per-channel, activations u8; the single-row tail fp32)"
    )
    assert (
        setting("static-s8-per-channel")
        .describe()
        .startswith("static-int8 MatMuls, dynamic-int8 attention (weights s8, per-channel")
    )
    assert len({s.describe() for s in QUANT_SETTINGS.values()}) == len(QUANT_SETTINGS)


def test_an_unknown_setting_lists_the_known_ones() -> None:
    with pytest.raises(QuantizeError, match="unknown int8 setting 'fast': one of s8, "):
        setting("fast")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("fast", "unknown int8 setting 'fast'"),
        ("static-s8", "--quant static-s8: static settings are for bench quant only"),
    ],
)
def test_build_model_refuses_a_setting_it_cannot_ship_before_training(
    name: str, says: str, capfd: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    code = main(["build-model", "--data", str(tmp_path), "--quant", name])
    assert code == 2
    assert says in capfd.readouterr().err


def test_build_model_refuses_a_soup_of_two_broad_fine_tunes_before_training(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["build-model", "--data", str(tmp_path), "--soup", "--broad-templates"])
    assert code == 2
    assert "--broad-templates trains one model with it: choose one" in capfd.readouterr().err


def test_bench_quant_refuses_an_unknown_setting_before_any_work(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "none"  # nothing is read: the names are checked first
    args = ["--checkpoint", str(missing), "--fused", str(missing), "--data", str(missing)]
    code = main(["bench", "quant", *args, "--settings", "s8", "fast", "--out", str(missing)])
    assert code == 2
    assert "unknown int8 setting 'fast': one of s8, " in capfd.readouterr().err
    assert not missing.exists()


def test_refit_heads_refuses_a_typo_share_outside_0_1_before_reading_the_model(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["refit-heads", "--data", str(tmp_path), "--model", str(tmp_path / "none")]
    assert main([*args, "--typo-copies", "1.5"]) == 2
    assert "typo_copies 1.5: give a share in [0, 1]" in capfd.readouterr().err


def test_refit_heads_passes_the_praise_and_denial_frames_and_the_rest_to_the_refit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import moderation.build.refit as refit

    seen: list[tuple[object, ...]] = []
    record = {"id": "m@x", "thresholds": {}, "head_refit": {}}
    monkeypatch.setattr(refit, "refit_in_place", lambda *a: seen.append(a) or record)
    args = ["refit-heads", "--data", str(tmp_path), "--model", str(tmp_path / "m")]
    assert main([*args, "--labels", "toxic", "hate", "--praise-frames", "--denial-frames"]) == 0
    assert main([*args, "--no-praise-frames", "--denial-frames"]) == 0
    assert main(args) == 0
    assert seen[0][2] == ("toxic", "hate") and seen[0][-2:] == (True, True)
    # Off when asked off; when not asked, as model.json says the model was fine-tuned.
    assert seen[1][-2:] == (False, True) and seen[2][-2:] == (None, None)


def test_build_model_refuses_held_out_frame_thresholds_without_a_threat_refit(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["build-model", "--data", str(tmp_path), "--work", str(tmp_path / "w")]
    code = main([*args, "--threat-threshold-on", "held-out-frames", "--refit-heads", "toxic"])
    assert code == 2
    assert "refit it (--refit-heads threat)" in capfd.readouterr().err
    assert not (tmp_path / "w").exists()  # refused before any training


def test_build_model_passes_the_seed_and_every_training_set_flag_to_the_recipe(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import moderation.build.pipeline as pipeline
    from moderation.build.train import TRAINING_SET_FLAGS, TrainSettings

    seen: dict[str, object] = {}
    monkeypatch.setattr(pipeline, "build_model", lambda *a, **kw: seen.update(kw))
    args = ["build-model", "--data", str(tmp_path), "--out", str(tmp_path / "m")]
    flags = ["--" + name.replace("_", "-") for name in TRAINING_SET_FLAGS]
    assert len(flags) == 13  # one per optional training set, up to the denial frames
    assert main([*args, "--seed", "14", *flags]) == 0
    assert seen["seed"] == 14
    assert {name: seen[name] for name in TRAINING_SET_FLAGS} == dict.fromkeys(
        TRAINING_SET_FLAGS, True
    )
    assert main([*args, *(f.replace("--", "--no-", 1) for f in flags)]) == 0
    assert {name: seen[name] for name in TRAINING_SET_FLAGS} == dict.fromkeys(
        TRAINING_SET_FLAGS, False
    )
    assert main([*args, "--threat-threshold-on", "held-out-frames"]) == 0
    assert seen["threat_threshold_on"] == "held-out-frames"
    assert main([*args, "--keep", "best_offensive_val"]) == 0
    assert seen["keep"] == "best_offensive_val"
    assert main([*args, "--space-glued-symbols"]) == 0
    assert seen["space_glued_symbols"] is True
    assert main([*args, "--typo-copies", "0.1"]) == 0
    assert seen["typo_copies"] == 0.1
    teacher = ["--distil-from", "teacher", "--student-blocks", "0,1,4,5"]
    assert main([*args, *teacher, "--distil-weight", "0.7", "--distil-temperature", "3"]) == 0
    assert (seen["distil_from"], seen["student_blocks"]) == ("teacher", "0,1,4,5")
    assert (seen["distil_weight"], seen["distil_temperature"]) == (0.7, 3.0)
    assert main([*args, *teacher, "--distil-hidden", "1"]) == 0
    assert seen["distil_hidden"] == 1.0
    assert main([*args, *teacher, "--distil-transfer", "0.5"]) == 0
    assert seen["distil_transfer"] == 0.5
    # No templates at all is a recipe too: 0 is passed on, not read as "the default".
    assert main([*args, "--template-repeat", "0"]) == 0
    assert seen["template_repeat"] == 0
    assert main(args) == 0
    assert seen["threat_threshold_on"] == "template-validation"
    d = TrainSettings()
    assert (seen["distil_from"], seen["student_blocks"]) == ("", "")  # no teacher: the recipe
    assert seen["keep"] == d.keep
    assert seen["typo_copies"] == d.typo_copies == 0.0  # the shipped recipe has none
    assert seen["seed"] == d.seed
    assert d.space_glued_symbols is False
    assert {name: seen[name] for name in TRAINING_SET_FLAGS} == {
        name: getattr(d, name) for name in TRAINING_SET_FLAGS
    }
    # What the build makes of them: the datasets' options object.
    chosen = TrainSettings(counterfactuals=True, balance_identity_terms=True).sets
    assert (chosen.counterfactuals, chosen.balance_identity_terms) == (True, True)
    assert not (chosen.broad_templates or chosen.insult_templates or chosen.threat_corpus)


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--soup", "--soup-seeds", "13", "14"], "--soup and --soup-seeds are two kinds of soup"),
        (["--soup-seeds", "13"], "--soup-seeds [13]: give two or more distinct seeds"),
        (["--soup-seeds", "13", "13"], "--soup-seeds [13, 13]: give two or more distinct seeds"),
        (["--seed", "14", "--soup-seeds", "13", "14"], "--seed and --soup-seeds both set"),
        # Refused where the settings are made (TrainSettings.__post_init__); a value
        # given is never swapped for the default (--epochs 0 once trained two).
        (["--linear-probe-epochs", "-1"], "linear_probe_epochs -1: give 0 (off) or more"),
        (["--epochs", "0"], "epochs 0: give 1 or more"),
        (["--learning-rate", "0"], "learning_rate 0.0: give more than 0"),
        (["--offensive-repeat", "0"], "offensive_repeat 0: give 1 or more"),
        (["--layer-lr-decay", "1.5"], "layer_lr_decay 1.5: give a factor in (0, 1]"),
        (["--period-toggle", "2"], "period_toggle 2.0: give a share in [0, 1]"),
        (["--insert-mentions", "-0.1"], "insert_mentions -0.1: give a share in [0, 1]"),
        (["--typo-copies", "1.5"], "typo_copies 1.5: give a share in [0, 1]"),
        (
            ["--insert-mentions", "0.5", "--mention-placeholder", "1.5"],
            "mention_placeholder 1.5: give a share in [0, 1]",
        ),
        (["--distil-from", "t"], "distil_from and student_blocks: give both"),
        (["--student-blocks", "0,1"], "distil_from and student_blocks: give both"),
        (["--distil-from", "t", "--student-blocks", "2,1"], "give distinct block numbers in order"),
        (["--distil-from", "t", "--student-blocks", "0,x"], "give block numbers, e.g. 0,1,2,5"),
        (
            ["--distil-from", "t", "--student-blocks", "0", "--distil-weight", "2"],
            "distil_weight 2.0: give a share in [0, 1]",
        ),
        (
            ["--distil-from", "t", "--student-blocks", "0", "--distil-temperature", "0"],
            "distil_temperature 0.0: give more than 0",
        ),
        (["--distil-from", "no/teacher", "--student-blocks", "0"], "no fine-tuned checkpoint"),
        (
            ["--distil-from", "t", "--student-blocks", "0", "--distil-hidden", "-1"],
            "distil_hidden -1.0: give 0 (off) or more",
        ),
        (
            ["--distil-from", "t", "--student-blocks", "0", "--distil-transfer", "2"],
            "distil_transfer 2.0: give a share in [0, 1]",
        ),
        (["--distil-transfer", "0.5"], "distil_transfer: its copies have no labels"),
        (["--distil-skip-sources", "templates-praise"], "distil_skip_sources: there is no teach"),
        (["--keep-start-share", "0.5"], "keep_start_share: there is no start"),
        (
            ["--distil-from", "t", "--student-blocks", "0", "--keep-start-share", "1"],
            "keep_start_share 1.0: give a share in [0, 1)",
        ),
        # A scope without its share would train hours for nothing it names.
        (["--period-toggle-sources", "templates"], "--period-toggle-sources without --period"),
        (["--mention-sources", "chitchat"], "--mention-sources without --insert-mentions"),
        (["--mention-placeholder", "0"], "--mention-placeholder without --insert-mentions"),
        (
            ["--mention-sources", "chitchat", "--insert-mentions", "0"],
            "--mention-sources without --insert-mentions",
        ),
    ],
)
def test_build_model_refuses_settings_it_cannot_make_before_training(
    extra: list[str], says: str, capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    work = tmp_path / "work"
    code = main(["build-model", "--data", str(tmp_path), "--work", str(work), *extra])
    assert code == 2
    assert says in capfd.readouterr().err
    assert not work.exists()


def test_a_soup_of_seeds_trains_the_recipe_once_per_seed_and_averages_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json
    from dataclasses import replace

    import moderation.build.pipeline as pipeline
    from moderation.build.train import TrainSettings

    trained: list[tuple[str, TrainSettings]] = []
    averaged: list[list[str]] = []

    def fake_train(data: Path, out: Path, settings: TrainSettings) -> None:
        out.mkdir(parents=True)
        trained.append((out.name, settings))
        (out / "training.json").write_text(json.dumps({"seed": settings.seed}))

    class Stop(Exception):
        pass

    def fake_average(checkpoints: list[Path], out: Path) -> Path:
        averaged.append([c.parent.name for c in checkpoints])
        raise Stop  # what follows (export, scoring) is the single model's path

    monkeypatch.setattr(pipeline, "train", fake_train)
    monkeypatch.setattr(pipeline, "average_checkpoints", fake_average)
    with pytest.raises(Stop):
        pipeline.build_model(
            tmp_path, tmp_path / "m", work_dir=tmp_path, skip_training=False, seeds=(13, 15, 14)
        )
    assert [(d, s.seed) for d, s in trained] == [
        ("train-seed13", 13),
        ("train-seed15", 15),
        ("train-seed14", 14),
    ]
    # Nothing but the seed differs between the ingredients.
    base = TrainSettings()
    assert all(s == replace(base, seed=s.seed) for _, s in trained)
    assert averaged == [["train-seed13", "train-seed15", "train-seed14"]]


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("epochs", 0, "epochs 0: give 1 or more"),
        ("batch_size", -4, "batch_size -4: give 1 or more"),
        ("learning_rate", 0.0, "learning_rate 0.0: give more than 0"),
        ("max_length", 2, "max_length 2: give 3 or more"),
        ("layer_lr_decay", 0.0, "layer_lr_decay 0.0: give a factor in (0, 1]"),
        ("linear_probe_epochs", -1, "linear_probe_epochs -1: give 0 (off) or more"),
        ("dropout", 1.0, "dropout 1.0: give a probability in [0, 1)"),
        ("evasion_fraction", 1.5, "evasion_fraction 1.5: give a share in [0, 1]"),
        ("max_steps", 0, "max_steps 0: give 1 or more, or None"),
        ("keep", "best", "keep best: give one of last, best_offensive_val"),
        ("pooling", "max", "pooling max: give one of cls, mean"),
    ],
)
def test_training_settings_refuse_what_no_build_can_use_where_they_are_made(
    field: str, value: object, says: str
) -> None:
    from dataclasses import replace

    from moderation.build.train import TrainSettings

    with pytest.raises(ValueError, match=re.escape(says)):
        TrainSettings(**{field: value})  # type: ignore[arg-type]
    # replace() checks too, and every problem is named at once.
    with pytest.raises(ValueError, match=r"epochs 0: .*; .*threads 0: "):
        replace(TrainSettings(), epochs=0, threads=0)
    # The boundaries themselves are allowed.
    TrainSettings(template_repeat=0, max_steps=None, period_toggle=1.0, layer_lr_decay=1.0)


TEACHER_CONFIG = {
    "id2label": {"0": "toxic", "1": "insult", "2": "hate", "3": "threat"},
    "moderation_pooling": "cls",
    "n_layers": 6,
}


@pytest.mark.parametrize(
    ("change", "blocks", "says"),
    [
        ({}, "0,1,4,6", "it has 6 blocks: the student's blocks [0, 1, 4, 6] are not all there"),
        ({"moderation_pooling": "mean"}, "0,1,4,5", "it pools by 'mean', the student by 'cls'"),
        ({"n_layers": None}, "0,1", "it has None blocks"),
        (
            {"id2label": {"0": "toxic", "1": "insult"}},
            "0,1",
            "its heads are {'0': 'toxic', '1': 'insult'}, not ['toxic', 'insult'",
        ),
        # Only a start of every block, in order, lies on a line with its fine-tune.
        ({}, "0,1,2,3 --keep-start-share 0.5", "--keep-start-share with --student-blocks 0,1,2,3"),
        ({}, "0,1,2,4,5 --keep-start-share 0.5", "with --student-blocks 0,1,2,4,5: a fine"),
    ],
)
def test_build_model_reads_the_teachers_config_before_any_work(
    change: dict[str, object],
    blocks: str,
    says: str,
    capfd: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    import json

    teacher = tmp_path / "teacher"
    teacher.mkdir()
    (teacher / "config.json").write_text(json.dumps({**TEACHER_CONFIG, **change}))
    work = tmp_path / "work"
    distil = ["--distil-from", str(teacher), "--student-blocks", *blocks.split()]
    code = main(["build-model", "--data", str(tmp_path), "--work", str(work), *distil])
    assert code == 2
    assert says in capfd.readouterr().err
    assert not work.exists()


def test_a_teacher_whose_config_fits_the_student_is_not_refused(tmp_path: Path) -> None:
    import json

    from moderation.build.train import teacher_refusal

    (tmp_path / "config.json").write_text(json.dumps(TEACHER_CONFIG))
    assert teacher_refusal(tmp_path, (0, 1, 4, 5), "cls") == ""
    (tmp_path / "config.json").write_text("{not json")
    assert "its config.json is not JSON" in teacher_refusal(tmp_path, (0, 1), "cls")


def test_a_start_share_exports_that_point_between_the_start_and_its_fine_tune(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    import numpy as np
    from safetensors.numpy import load_file, save_file

    import moderation.build.pipeline as pipeline

    def checkpoint(d: Path, w: list[float], config: dict[str, object]) -> None:
        d.mkdir(parents=True)
        save_file({"w": np.array(w, np.float32)}, str(d / "model.safetensors"))
        (d / "config.json").write_text(json.dumps(config))

    start = tmp_path / "start"
    checkpoint(start, [4.0, -8.0], {**TEACHER_CONFIG, "n_layers": 2, "from": "start"})
    train_dir = tmp_path / "work" / "train"
    checkpoint(train_dir / "best", [0.0, 8.0], {**TEACHER_CONFIG, "n_layers": 2, "from": "tuned"})
    (train_dir / "training.json").write_text("{}")
    exported: list[Path] = []

    class Stop(Exception):
        pass

    def fake_build(checkpoint_dir: Path, *args: object, **kwargs: object) -> None:
        exported.append(checkpoint_dir)
        raise Stop  # what follows (scoring, thresholds) is any build's path

    monkeypatch.setattr(pipeline, "keep_epoch", lambda out, keep: out / "best")
    monkeypatch.setattr(pipeline, "build", fake_build)
    with pytest.raises(Stop):
        pipeline.build_model(
            tmp_path,
            tmp_path / "m",
            work_dir=tmp_path / "work",
            skip_training=True,
            distil_from=str(start),
            student_blocks="0,1",
            distil_weight=0.0,
            keep_start_share=0.25,
        )
    (point,) = exported
    np.testing.assert_array_equal(load_file(str(point / "model.safetensors"))["w"], [1.0, 4.0])
    # The fine-tune's own config and tokenizer go with it, not the start's.
    assert json.loads((point / "config.json").read_text())["from"] == "tuned"
