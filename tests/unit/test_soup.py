"""The soup's averaging, on small checkpoints written as real safetensors files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from moderation.build.soup import WEIGHTS_FILE, SoupError, average_checkpoints


def _checkpoint(root: Path, name: str, tensors: dict[str, np.ndarray]) -> Path:
    d = root / name
    d.mkdir()
    save_file(tensors, str(d / WEIGHTS_FILE))
    (d / "config.json").write_text(f'{{"from": "{name}"}}')
    return d


def test_the_mean_of_each_float_tensor_and_the_first_ones_other_files(tmp_path: Path) -> None:
    ids = np.arange(4, dtype=np.int64)
    a = _checkpoint(tmp_path, "a", {"w": np.array([1.0, 2.0], np.float32), "ids": ids})
    b = _checkpoint(tmp_path, "b", {"w": np.array([3.0, -2.0], np.float32), "ids": ids})
    c = _checkpoint(tmp_path, "c", {"w": np.array([2.0, 3.0], np.float32), "ids": ids})
    out = average_checkpoints([a, b, c], tmp_path / "soup")
    got = load_file(str(out / WEIGHTS_FILE))
    np.testing.assert_array_equal(got["w"], np.array([2.0, 1.0], np.float32))
    assert got["w"].dtype == np.float32
    np.testing.assert_array_equal(got["ids"], ids)
    assert (out / "config.json").read_text() == '{"from": "a"}'


def test_one_checkpoint_is_its_own_soup(tmp_path: Path) -> None:
    w = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    a = _checkpoint(tmp_path, "a", {"w": w})
    got = load_file(str(average_checkpoints([a], tmp_path / "soup") / WEIGHTS_FILE))
    np.testing.assert_array_equal(got["w"], w)


@pytest.mark.parametrize(
    ("other", "says"),
    [
        ({"v": np.zeros(2, np.float32)}, "not in both"),
        ({"w": np.zeros(3, np.float32)}, "float32[3]"),
        ({"w": np.zeros(2, np.float64)}, "float64[2]"),
    ],
)
def test_checkpoints_of_different_models_are_refused(
    tmp_path: Path, other: dict[str, np.ndarray], says: str
) -> None:
    a = _checkpoint(tmp_path, "a", {"w": np.zeros(2, np.float32)})
    b = _checkpoint(tmp_path, "b", other)
    with pytest.raises(SoupError, match=says.replace("[", r"\[").replace("]", r"\]")):
        average_checkpoints([a, b], tmp_path / "soup")
    assert not (tmp_path / "soup").exists()


def test_differing_index_buffers_are_refused(tmp_path: Path) -> None:
    a = _checkpoint(tmp_path, "a", {"ids": np.arange(3, dtype=np.int64)})
    b = _checkpoint(tmp_path, "b", {"ids": np.arange(1, 4, dtype=np.int64)})
    with pytest.raises(SoupError, match="non-float"):
        average_checkpoints([a, b], tmp_path / "soup")


def test_nothing_to_average_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SoupError, match="no checkpoints"):
        average_checkpoints([], tmp_path / "soup")


def _report(seed: int, broad: bool) -> dict[str, object]:
    return {
        "settings": {"seed": seed},
        "broad_templates": broad,
        "train_examples": 60689,
        "history": [{"offensive_val_macro_f1": 0.77}, {"offensive_val_macro_f1": 0.7756}],
    }


def test_the_card_names_what_a_soups_fine_tunes_differ_in() -> None:
    from moderation.build.card import _soup_lines

    assert _soup_lines({"soup": []}) == []
    seeds = "\n".join(_soup_lines({"soup": [_report(13, False), _report(15, False)]}))
    assert "mean of 2 fine-tunes" in seeds and "the seed of their shuffles" in seeds
    assert "| 2 | 15 | 60,689 | 0.7700, 0.7756 |" in seeds
    frames = "\n".join(_soup_lines({"soup": [_report(13, False), _report(13, True)]}))
    assert "the templates' second set of frames" in frames
    assert "| 2 | with | 60,689 |" in frames


def test_shares_weigh_each_checkpoint_and_must_be_weights(tmp_path: Path) -> None:
    a = _checkpoint(tmp_path, "a", {"w": np.array([2.0, 0.0], np.float32)})
    b = _checkpoint(tmp_path, "b", {"w": np.array([-2.0, 4.0], np.float32)})
    out = average_checkpoints([a, b], tmp_path / "point", [0.75, 0.25])
    np.testing.assert_array_equal(load_file(str(out / WEIGHTS_FILE))["w"], [1.0, 1.0])
    for shares in ([0.5], [0.7, 0.7], [1.5, -0.5]):
        with pytest.raises(SoupError, match="one share of 0 or more per checkpoint"):
            average_checkpoints([a, b], tmp_path / "bad", shares)
    assert not (tmp_path / "bad").exists()


def test_the_card_says_what_share_of_the_start_was_kept_with_or_without_a_recovered_start() -> None:
    from moderation.build.card import _start_lines

    assert _start_lines({}) == []
    (share,) = _start_lines({"start_share": 0.25})
    assert "0.25 of the start's (--distil-from) and 0.75 of the fine-tune's" in share
    recovered, share = _start_lines({"started_from": "m@6d0270df4800", "start_share": 0.5})
    assert recovered.startswith("Started from `m@6d0270df4800`")
    assert "`--keep-start-share 0.5`" in share
