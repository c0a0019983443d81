"""Two versions of `moderation/normalize.py` timed in one process, text by text.

A lever on the normalizer is judged against main by this instrument (docs/model.md,
rule 90): both files loaded as modules beside the installed package (the word files and
the rest of the package are the installed one's), each one's `Normalizer` built on the
shipped model's vocabulary, and every text read by both alternately, the order flipped
every time, the garbage collector off. On a shared two-core host the machine's phases
move absolute times between runs; alternating text by text puts both readings in the
same phase, so the ratio is the measure.

    python scripts/normalize_ab.py BASE/normalize.py CANDIDATE/normalize.py [--rounds 3]

Prints, per case, each one's time (p50 over chat messages, the median of the runs for
each long case) and the ratio candidate / base. Also says whether the two read every
chat message the same.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: cannot be loaded as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def _cases(chat: list[str]) -> dict[str, str]:
    """The normalizer's long and costly inputs, one message each."""
    paste = ""
    for t in chat:
        if len(paste) >= 3000:
            break
        paste += t + " "
    runs = ["youareanidiot", "gohomenow", "iloveyou", "shutupnow"]
    return {
        "a hundred short readable runs": " ".join(runs * 25),
        'forty contractions glued after "..."': " ".join(["...you'rejustanidiot"] * 40),
        "forty runs after dashes": " ".join(["yes-youareanidiot"] * 40),
        "a hundred typos in quotation marks": " ".join(
            ["\u201enzai\u201c", "\u00abbtich\u00bb", "\u300cfcuk\u300d", '"stpid"'] * 25
        ),
        "a hundred masked words": " ".join(["f**k", "s**t", "b***h", "id**t"] * 25),
        "a 3000-character paste": paste[:3000],
    }


def _evasive_pastes(plain: str) -> dict[str, str]:
    """The paste written evasively: what a lever's new reading costs at its longest
    (reported beside the cases, not counted in the slowest)."""
    from moderation.evaluation.evasions import evade

    return {
        f"the paste, {kind}": evade(plain, kind, 13)
        for kind in ("Greek look-alike letters", "upside down", "a capital I for an l")
    }


def _alternate(
    a: Callable[[str], str], b: Callable[[str], str], text: str, flip: bool
) -> tuple[float, float]:
    first, second = (b, a) if flip else (a, b)
    t0 = time.perf_counter()
    first(text)
    t1 = time.perf_counter()
    second(text)
    t2 = time.perf_counter()
    return (t2 - t1, t1 - t0) if flip else (t1 - t0, t2 - t1)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("base", type=Path)
    p.add_argument("candidate", type=Path)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=50, help="runs of each long case a round")
    p.add_argument("--messages", type=int, default=3000)
    ns = p.parse_args()

    from tokenizers import Tokenizer

    from moderation.bench.model import chat_messages
    from moderation.classifier import load_manifest
    from moderation.config import Source, classifier_settings
    from moderation.cpu import cpu_info

    settings = classifier_settings(Source())
    vocab = frozenset(Tokenizer.from_file(str(settings.model_dir / "tokenizer.json")).get_vocab())
    manifest = load_manifest(settings.model_dir)
    built = []
    for path, name in ((ns.base, "normalize_base"), (ns.candidate, "normalize_candidate")):
        module = _load(path, name)
        leading = module.drops_leading_mentions(manifest)
        built.append(module.Normalizer(vocab, leading_mentions=leading))
    base, cand = built
    chat = chat_messages(ns.messages, 0.0, 11)
    ordinary = _cases(chat)
    cases = {**ordinary, **_evasive_pastes(ordinary["a 3000-character paste"])}
    differ = sum(base(t) != cand(t) for t in chat)
    for text in [*chat, *cases.values()]:  # warm both
        base(text), cand(text)

    chat_a: list[float] = []
    chat_b: list[float] = []
    long_a: dict[str, list[float]] = {k: [] for k in cases}
    long_b: dict[str, list[float]] = {k: [] for k in cases}
    flip = False
    gc.disable()
    try:
        for _ in range(ns.rounds):
            for text in chat:
                x, y = _alternate(base, cand, text, flip)
                chat_a.append(x)
                chat_b.append(y)
                flip = not flip
            for name, text in cases.items():
                for _ in range(ns.runs):
                    x, y = _alternate(base, cand, text, flip)
                    long_a[name].append(x)
                    long_b[name].append(y)
                    flip = not flip
    finally:
        gc.enable()

    info = Path("/proc/cpuinfo").read_text().splitlines()
    names = [line.split(":", 1)[1].strip() for line in info if line.startswith("model name")]
    model = names[0] if names else platform.machine()
    print(f"CPU: {model} ({cpu_info().kind}); Python {sys.version.split()[0]}")
    print(f"base {ns.base}, candidate {ns.candidate}; {ns.rounds} rounds, alternately")
    print(f"chat messages read otherwise by the candidate: {differ} of {len(chat)}\n")
    print("| | base | candidate | candidate / base |")
    print("|---|---|---|---|")
    a, b = statistics.median(chat_a) * 1e6, statistics.median(chat_b) * 1e6
    row = f"chat message p50 ({len(chat):,} messages x {ns.rounds})"
    print(f"| {row} | {a:.2f} us | {b:.2f} us | {b / a:.3f} |")
    slowest_a = max(ordinary, key=lambda k: statistics.median(long_a[k]))
    slowest_b = max(ordinary, key=lambda k: statistics.median(long_b[k]))
    for name in cases:
        a, b = statistics.median(long_a[name]) * 1e3, statistics.median(long_b[name]) * 1e3
        print(f"| {name} | {a:.3f} ms | {b:.3f} ms | {b / a:.3f} |")
    a = statistics.median(long_a[slowest_a]) * 1e3
    b = statistics.median(long_b[slowest_b]) * 1e3
    print(f"\nslowest of the {len(ordinary)} cases above the evasive pastes:")
    print(f"base {a:.3f} ms ({slowest_a}), candidate {b:.3f} ms ({slowest_b}): {b / a:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
