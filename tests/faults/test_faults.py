"""The fault suite at its short scale: every scenario, real broker, real workers.

The long scale (50,000 messages under repeated crashes, 10 s outages, 30 s of
overload) runs on demand: scripts/faults.sh. Both write nothing here but assert the
targets: nothing lost, duplicates only from crashes and within their bound, and each
scenario's own checks. Recovery time is printed, not asserted: it is a timing on a
shared 2-core machine (the crash scenario's once took 27.5 s, when the embedded broker
needed two rebalances to hand a restarted static member its partitions back), and no
test holds a timing threshold. The runner (``python -m tests.faults.run``) reports it
against the 15 s target (``RECOVERY_TARGET_S``) and fails its run above it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from moderation.cpu import cpu_info
from tests.faults.harness import Result
from tests.faults.scenarios import SCENARIOS, SHORT

pytestmark = [pytest.mark.integration, pytest.mark.fault, pytest.mark.timeout(600)]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_fault(scenario: Callable[..., Coroutine[Any, Any, Result]], tmp_path: Path) -> None:
    result = asyncio.run(scenario(SHORT, tmp_path))
    print(f"CPU: {cpu_info().describe()}\n{result}")
    assert result.sent > 0
    assert result.lost == 0, f"{result.lost} records never answered nor dead-lettered"
    if scenario.__name__ != "crash":
        assert result.duplicates == 0
    failed = [name for name, ok in result.checks.items() if not ok]
    assert not failed, f"{result.scenario}: {failed} ({result.notes})"
