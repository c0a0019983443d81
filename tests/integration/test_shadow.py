"""Shadow scoring against the real broker: the live verdicts are the same with and
without a candidate in shadow, and the comparison's counts add up to what the verdicts
themselves say the candidate would have decided."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path
from typing import Any

from moderation.config import ClassifierSettings, default_model_dir
from moderation.shadow import Shadow
from tests.integration.kafka_io import message, produce, read, unique_ids
from tests.integration.workers import running
from tests.topics import Topics

CANDIDATE_ID = "moderation-minilm-int8@shadow-test"
# The candidate: the same weights under another id, with every threshold at 0.001, so
# it would nudge much of what the live model allows (benign chat scores ~1e-4..1e-2).
CANDIDATE_THRESHOLD = 0.001
TEXTS = [
    "see you at practice tomorrow!",
    "you are a worthless idiot and everyone hates you",
    "can you send me the notes from class?",
    "lol that movie was so bad it was good",
    "shut up, nobody asked you",
    "happy birthday, hope it is a great one",
    "i will find you and hurt you",
    "what time does the game start",
]


def candidate(dst: Path) -> Path:
    shutil.copytree(default_model_dir(), dst)
    manifest = json.loads((dst / "model.json").read_text())
    manifest["id"] = CANDIDATE_ID
    manifest["thresholds"] = {label: CANDIDATE_THRESHOLD for label in manifest["labels"]}
    (dst / "model.json").write_text(json.dumps(manifest))
    return dst


def test_live_verdicts_are_the_same_with_a_shadow_and_its_counts_add_up(
    topics: Topics, model: Any, tmp_path: Path
) -> None:
    n = 120
    records = [(message(f"m{i}", f"{TEXTS[i % len(TEXTS)]} #{i}"), None, []) for i in range(n)]
    shadowed = ClassifierSettings(threads=1, shadow_model_dir=candidate(tmp_path / "cand"))

    async def run(t: Topics, classifier: ClassifierSettings | None) -> tuple[Any, Shadow | None]:
        async with running(t.settings(budget_ms=30_000), model, classifier=classifier) as w:
            await produce(t.bootstrap, t.input, records)
            out = await read(t.bootstrap, t.verdicts, n, 60, count=unique_ids)
            sh = w.moderator.shadow
            deadline = time.monotonic() + 30
            while sh is not None and sh.stats.compared + sh.stats.skipped < n:
                assert time.monotonic() < deadline, "the shadow never caught up"
                await asyncio.sleep(0.05)
            return {o.json()["message_id"]: o.json() for o in out}, sh

    async def both() -> tuple[Any, Any, Shadow | None]:
        other = Topics.named(topics.bootstrap, "shadow-")
        await other.create()
        plain, none = await run(topics, None)
        assert none is None
        with_shadow, sh = await run(other, shadowed)
        return plain, with_shadow, sh

    plain, with_shadow, sh = asyncio.run(both())
    assert sh is not None and set(plain) == set(with_shadow) == {f"m{i}" for i in range(n)}
    for mid, v in plain.items():  # the live model decided every verdict, as without
        w = with_shadow[mid]
        assert (w["decision"], w["reason"], w["model"], w["scores"]) == (
            v["decision"],
            v["reason"],
            v["model"],
            v["scores"],
        )
        assert w["model"] != CANDIDATE_ID
    st = sh.stats
    assert st.offered == n and st.skipped == 0 and st.failed == 0
    assert st.compared == n == st.agreed + st.flipped
    # What the verdicts say the candidate would do: same scores, lower thresholds.
    would_flip = [
        mid
        for mid, v in plain.items()
        if v["decision"] == "allow" and max(v["scores"].values()) >= CANDIDATE_THRESHOLD
    ]
    assert st.flipped == len(would_flip) > 0
    assert {d for d, _ in st.flips} == {"allow->nudge"}
    by_label = {
        label: sum(1 for mid in would_flip if plain[mid]["scores"][label] >= CANDIDATE_THRESHOLD)
        for label in next(iter(plain.values()))["scores"]
    }
    assert {label: n for (_, label), n in st.flips.items()} == {
        label: k for label, k in by_label.items() if k
    }
    assert max(st.diff_max.values()) == 0.0  # the same weights score alike
    assert "agreement" in sh.summary()
