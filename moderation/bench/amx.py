"""`moderation bench amx`: the shipped model on AMX int8 tiles against the same CPU's VNNI.

On a CPU with AMX int8 (Sapphire Rapids and later) ONNX Runtime's MLAS runs its u8s8
GEMMs on the tiles; refused the tile state, it keeps its AVX-512 VNNI kernels, and
ONNX Runtime has no option to choose. So each round starts two child processes, one
as the worker would run and one under scripts/without-amx.sh (which refuses that one
request), their order flipped every round, and each times the shipped model per chat
message (tokenization included, as the worker scores) and at fixed lengths (model
only). Both must give the same scores bit for bit: the sums are exact on either unit.
Needs a checkout (the script) and a C compiler.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from moderation.bench.arms import Arm, child, compare, conclude, parser, plan_of, rounds

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "without-amx.sh"
ARMS = ("AMX tiles (as shipped)", "VNNI kernels (tiles refused)")


def _check(arm: Arm, result: dict[str, Any]) -> None:
    refuse = arm.name == ARMS[1]
    if result["amx"] == refuse or result["refused"] != refuse:
        raise RuntimeError(f"the {'refused' if refuse else 'AMX'} arm ran with amx={result['amx']}")


def main(argv: list[str] | None = None) -> int:
    """Alternate the two arms in rounds; print and store the table."""
    ns = parser("moderation bench amx", __doc__, paused=0).parse_args(argv)
    plan = plan_of(ns)
    if ns.child:
        print(json.dumps(child(plan)))
        return 0

    from moderation.cpu import cpu_info

    cpu = cpu_info()
    if not cpu.amx:
        print(f"no AMX tiles for this process ({cpu.describe()}): nothing to compare")
        return 2
    if not SCRIPT.is_file():
        print(f"{SCRIPT} is missing: run from a checkout")
        return 2
    arms = [Arm(ARMS[0]), Arm(ARMS[1], prefix=(str(SCRIPT),))]
    runs = rounds("moderation.bench.amx", arms, plan, ns.rounds, _check)
    table, results = compare(runs, ARMS[1], "int8 GEMMs on", "VNNI")
    timed = (
        f"{ns.messages} held-out chat messages per round (tokenization included) and "
        f"{ns.repeats} runs at each fixed length (model only), 2 threads, spinning off"
    )
    return conclude(ns, "amx", table, results, timed)


if __name__ == "__main__":
    raise SystemExit(main())
