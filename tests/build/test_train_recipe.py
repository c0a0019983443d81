"""The training recipe runs end to end on the real data, for a few steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs the `train` extra (torch)")

from moderation.build import datasets
from moderation.build.train import TrainSettings, train

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
pytestmark = [pytest.mark.train, pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
def test_a_few_steps_of_the_recipe_train_every_label(tmp_path: Path) -> None:
    settings = TrainSettings(epochs=1, max_steps=3, chitchat_train=500)
    best = train(DATA, tmp_path, settings)
    config = json.loads((best / "config.json").read_text())
    assert [config["id2label"][str(i)] for i in range(len(datasets.LABELS))] == list(
        datasets.LABELS
    )
    report = json.loads((tmp_path / "training.json").read_text())
    assert (best, report["kept_epoch"], report["kept_by"]) == (tmp_path / "best", 1, "last")
    # Every saved epoch carries its tokenizer, so any of them can be re-picked later.
    assert (tmp_path / "epoch-1" / "tokenizer.json").is_file()
    sources = report["train_sources"]
    for source in ("convabuse", "toxigen", "templates-threat", "templates-benign-identity"):
        assert sources.get(source, 0) > 0, source
    assert any(s.endswith("+evasion") for s in sources)


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
def test_a_few_steps_of_a_student_matched_to_its_teacher(tmp_path: Path) -> None:
    from moderation.build.convert import distilbert_from_minilm

    teacher = tmp_path / "teacher"
    distilbert_from_minilm(list(datasets.LABELS), seed=2).save_pretrained(teacher)
    settings = TrainSettings(
        epochs=1,
        max_steps=3,
        chitchat_train=500,
        distil_from=str(teacher),
        student_blocks="0,2,5",
        distil_hidden=1.0,
        distil_transfer=0.5,
    )
    best = train(DATA, tmp_path / "student", settings)
    config = json.loads((best / "config.json").read_text())
    assert config["n_layers"] == 3
    report = json.loads((tmp_path / "student" / "training.json").read_text())
    assert report["settings"]["student_blocks"] == "0,2,5"
    assert report["history"][0]["offensive_val_macro_f1"] > 0.0
    # The copies the teacher alone supervises were trained on beside the labelled set.
    assert report["train_sources"]["chitchat+transfer"] > 0


def test_layer_lr_decay_gives_each_block_its_rate_and_every_weight_one_group() -> None:
    from moderation.build.convert import distilbert_from_minilm
    from moderation.build.train import param_groups

    model = distilbert_from_minilm(list(datasets.LABELS))
    model.distilbert.embeddings.word_embeddings.weight.requires_grad_(False)
    trainable = {id(p) for p in model.parameters() if p.requires_grad}
    lr = 1e-4

    def rate_of(groups: list[dict[str, object]], name: str) -> float:
        param = dict(model.named_parameters())[name]
        (rate,) = [g.get("lr", lr) for g in groups if any(p is param for p in g["params"])]
        return float(rate)  # type: ignore[arg-type]

    for decay in (1.0, 0.8):
        groups = param_groups(model, TrainSettings(learning_rate=lr, layer_lr_decay=decay))
        placed = [id(p) for g in groups for p in g["params"]]
        assert sorted(placed) == sorted(trainable)  # every trainable weight exactly once
        for g in groups:
            matrices = {p.dim() > 1 for p in g["params"]}
            assert g["weight_decay"] == (0.01 if matrices == {True} else 0.0)
    # At decay 1, the shipped recipe's two groups in their order: matrices, then the rest.
    shipped = param_groups(model, TrainSettings(learning_rate=lr))
    assert [g["weight_decay"] for g in shipped] == [0.01, 0.0]
    assert [id(p) for p in shipped[0]["params"]] == [
        id(p) for p in model.parameters() if p.requires_grad and p.dim() > 1
    ]
    groups = param_groups(model, TrainSettings(learning_rate=lr, layer_lr_decay=0.8))
    top = "distilbert.transformer.layer.5.ffn.lin1.weight"
    bottom = "distilbert.transformer.layer.0.attention.q_lin.weight"
    assert rate_of(groups, top) == pytest.approx(lr)
    assert rate_of(groups, bottom) == pytest.approx(lr * 0.8**5)
    assert rate_of(groups, "distilbert.embeddings.LayerNorm.weight") == pytest.approx(lr * 0.8**6)
    assert rate_of(groups, "classifier.weight") == pytest.approx(lr)


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_the_head_on_pooled_rows_gives_the_models_own_logits(pooling: str) -> None:
    import torch

    from moderation.build.convert import distilbert_from_minilm
    from moderation.build.pooling import (
        head_inputs,
        head_logits,
        logits,
        logits_and_hidden,
        set_pooling,
    )

    model = distilbert_from_minilm(list(datasets.LABELS), seed=3)
    set_pooling(model, pooling)  # type: ignore[arg-type]
    model.eval()
    ids = torch.tensor([[101, 7592, 2088, 102, 0, 0], [101, 2017, 2024, 1037, 2158, 102]])
    mask = (ids != 0).long()
    with torch.inference_mode():
        hidden = model.distilbert(input_ids=ids, attention_mask=mask)[0]
        if pooling == "cls":
            expected_rows, expected = hidden[:, 0], model(input_ids=ids, attention_mask=mask).logits
        else:  # the masked mean, by hand: the padding rows of the first text left out
            expected_rows = torch.stack([hidden[0, :4].mean(dim=0), hidden[1].mean(dim=0)])
            pre = torch.relu(model.pre_classifier(expected_rows))
            expected = model.classifier(pre)
        rows = head_inputs(model, ids, mask)
        torch.testing.assert_close(rows, expected_rows)
        torch.testing.assert_close(head_logits(model, rows), expected)
        torch.testing.assert_close(logits(model, ids, mask), expected)
        # The distillation's one pass: the same logits, and the last hidden state read.
        both, states = logits_and_hidden(model, ids, mask)
        torch.testing.assert_close(both, expected)
        assert len(states) == 7  # the embeddings' output, then each of six blocks'
        torch.testing.assert_close(states[-1], hidden)


def test_a_linear_probe_trains_the_head_alone_and_lowers_its_loss() -> None:
    import torch

    from moderation.build.convert import distilbert_from_minilm
    from moderation.build.train import linear_probe, pooled_rows

    model = distilbert_from_minilm(list(datasets.LABELS), seed=3)
    encoder = {k: v.clone() for k, v in model.distilbert.state_dict().items()}
    head = {k: v.clone() for k, v in model.classifier.state_dict().items()}
    ids = [[101, 7592 + i, 2088 + 3 * i, 102] for i in range(40)]
    rows = pooled_rows(model, ids, pad_id=0)
    assert rows.shape == (40, model.config.dim) and bool(rows.abs().sum(dim=1).gt(0).all())
    # Toxic follows the rows' first coordinate; threat is never known (masked out).
    targets = torch.zeros((40, len(datasets.LABELS)))
    targets[:, 0] = (rows[:, 0] > rows[:, 0].median()).float()
    known = torch.ones_like(targets)
    known[:, 3] = 0.0
    losses = linear_probe(model, rows, targets, known, epochs=30, seed=1, batch_size=8)
    assert len(losses) == 30 and losses[-1] < 0.5 * losses[0]
    for k, v in model.distilbert.state_dict().items():
        assert torch.equal(v, encoder[k]), k  # the encoder is not touched
    assert not torch.equal(model.classifier.weight, head["weight"])
    with pytest.raises(ValueError, match="linear_probe_epochs"):
        linear_probe(model, rows, targets, known, epochs=-1, seed=1)


def test_the_loss_reads_only_the_labels_an_example_supervises() -> None:
    import torch

    from moderation.build.train import masked_loss

    logits = torch.tensor([[2.0, -1.0], [0.5, 3.0]])
    targets = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    known = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    each = torch.nn.functional.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    expected = (each[0, 0] + each[1, 0] + each[1, 1]) / 3
    torch.testing.assert_close(masked_loss(logits, targets, known), expected)
    flipped = targets.clone()
    flipped[0, 1] = 1.0  # an unsupervised label's target says nothing
    torch.testing.assert_close(masked_loss(logits, flipped, known), expected)
    assert float(masked_loss(logits, targets, torch.zeros_like(known))) == 0.0


def test_dropout_reaches_every_encoder_block_and_only_in_training() -> None:
    import torch

    from moderation.build.convert import distilbert_from_minilm

    default = distilbert_from_minilm(list(datasets.LABELS), seed=3)
    raised = distilbert_from_minilm(list(datasets.LABELS), seed=3, dropout=0.3)
    # MiniLM's own rate unless told, on the hidden states and the attention weights.
    assert (default.config.dropout, default.config.attention_dropout) == (0.1, 0.1)
    for block in raised.distilbert.transformer.layer:
        assert block.attention.dropout.p == 0.3
        assert block.ffn.dropout.p == 0.3
    ids = torch.tensor([[101, 7592, 2088, 102]])
    with torch.inference_mode():
        raised.eval()
        default.eval()
        # Same weights, so in eval mode the rate changes nothing.
        torch.testing.assert_close(raised(input_ids=ids).logits, default(input_ids=ids).logits)


def test_a_student_keeps_the_teachers_chosen_blocks_embeddings_and_head(tmp_path: Path) -> None:
    import torch

    from moderation.build.convert import distilbert_from_minilm
    from moderation.build.train import student_from

    teacher = distilbert_from_minilm(list(datasets.LABELS), seed=5)
    teacher.save_pretrained(tmp_path)
    student = student_from(tmp_path, (0, 1, 4, 5), dropout=0.2)
    assert student.config.n_layers == 4
    assert len(student.distilbert.transformer.layer) == 4
    assert student.distilbert.transformer.layer[0].attention.dropout.p == 0.2
    sd, td = student.state_dict(), teacher.state_dict()
    for mine, theirs in enumerate((0, 1, 4, 5)):
        for name in ("attention.q_lin.weight", "ffn.lin2.bias", "output_layer_norm.weight"):
            torch.testing.assert_close(
                sd[f"distilbert.transformer.layer.{mine}.{name}"],
                td[f"distilbert.transformer.layer.{theirs}.{name}"],
            )
    for name in ("distilbert.embeddings.position_embeddings.weight", "classifier.weight"):
        torch.testing.assert_close(sd[name], td[name])
    # It runs as four blocks: the teacher with blocks 2 and 3 taken out gives its logits.
    ids = torch.tensor([[101, 7592, 2088, 102]])
    teacher.distilbert.transformer.layer = torch.nn.ModuleList(
        [teacher.distilbert.transformer.layer[i] for i in (0, 1, 4, 5)]
    )
    with torch.inference_mode():
        student.eval()
        teacher.eval()
        torch.testing.assert_close(student(input_ids=ids).logits, teacher(input_ids=ids).logits)
    with pytest.raises(ValueError, match="the teacher has 6 blocks"):
        student_from(tmp_path, (0, 6), dropout=0.1)


def test_the_teachers_term_pulls_every_head_to_the_teachers_scores() -> None:
    import torch

    from moderation.build.train import distil_loss

    teacher = torch.tensor([[3.0, -2.0, 0.5, -4.0]])
    at = teacher.clone().requires_grad_(True)
    distil_loss(at, teacher, 2.0).backward()
    assert at.grad is not None
    torch.testing.assert_close(at.grad, torch.zeros_like(teacher))  # its minimum
    away = torch.zeros_like(teacher, requires_grad=True)
    distil_loss(away, teacher, 2.0).backward()
    assert away.grad is not None
    # Every head is pulled towards the teacher's side, unsupervised labels included.
    assert torch.equal(torch.sign(-away.grad), torch.sign(teacher))
    assert float(distil_loss(away.detach(), teacher, 2.0)) > float(
        distil_loss(teacher, teacher, 2.0)
    )


def test_rows_the_teacher_does_not_speak_for_learn_nothing_from_its_term() -> None:
    import torch

    from moderation.build.datasets import Example
    from moderation.build.train import distil_loss, taught_rows

    examples = [
        Example("a", (1, 0, 1, 0), "templates-hate"),
        Example("b", (0, 0, 0, 0), "templates-praise"),
        Example("c", (0, 0, 0, 0), "templates-praise+evasion"),
        Example("d", (0, 0, 0, 0), "chitchat"),
    ]
    taught = taught_rows(examples, "templates-praise, chitchat-none")
    assert taught == [True, False, False, True]
    assert taught_rows(examples, "") == [True] * 4
    teacher = torch.tensor([[3.0, -2.0, 0.5, -4.0]] * 4)
    away = torch.zeros_like(teacher, requires_grad=True)
    distil_loss(away, teacher, 2.0, torch.tensor(taught)).backward()
    assert away.grad is not None
    assert torch.count_nonzero(away.grad[1:3]) == 0
    assert torch.all(away.grad[[0, 3]] != 0)
    # Over the rows it speaks for, the same mean as the term without a mask.
    both = torch.tensor([True, False, False, True])
    torch.testing.assert_close(
        distil_loss(away.detach(), teacher, 2.0, both),
        distil_loss(away.detach()[[0, 3]], teacher[[0, 3]], 2.0),
    )
    nobody = torch.zeros(4, dtype=torch.bool)
    assert float(distil_loss(away.detach(), teacher, 2.0, nobody)) == 0.0


def test_the_hidden_match_pairs_each_student_block_with_its_teacher_block_past_padding() -> None:
    import torch

    from moderation.build.train import hidden_match_loss

    gen = torch.Generator().manual_seed(1)
    teacher = tuple(torch.randn(2, 3, 4, generator=gen) for _ in range(7))
    blocks = (0, 1, 4, 5)
    mask = torch.tensor([[1, 1, 0], [1, 1, 1]])
    # A student whose states are the teacher's at the blocks it started from matches.
    student = (teacher[0], *(teacher[b + 1].clone() for b in blocks))
    assert float(hidden_match_loss(student, teacher, blocks, mask)) == 0.0
    # What the padding holds is not matched.
    padded = tuple(s.clone() for s in student)
    for s in padded:
        s[0, 2] += 5.0
    assert float(hidden_match_loss(padded, teacher, blocks, mask)) == 0.0
    # One value off by 2 in the third block: 4 over 5 tokens x 4 values, over 4 blocks.
    off = tuple(s.clone() for s in student)
    off[3][1, 0, 0] += 2.0
    assert float(hidden_match_loss(off, teacher, blocks, mask)) == pytest.approx(4 / 20 / 4)
    # Paired by origin, not by position: the teacher's blocks 2 and 3 are never read.
    shuffled = list(teacher)
    shuffled[3], shuffled[4] = torch.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    assert float(hidden_match_loss(student, tuple(shuffled), blocks, mask)) == 0.0
