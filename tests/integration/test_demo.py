"""The README's run command: the demo on the embedded stack answers every message."""

from __future__ import annotations

import subprocess
import sys

import pytest

from moderation.demo import SAMPLES

pytestmark = pytest.mark.integration


def test_demo_prints_a_verdict_for_every_sample_and_a_summary() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "moderation.cli", "demo", "--rounds", "1"],
        capture_output=True,
        timeout=180,
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    lines = [line for line in out.splitlines() if line.startswith("demo-")]
    assert len(lines) == len(SAMPLES) + 1  # every sample, plus the bad record with an id
    assert any("invalid_input" in line for line in lines)
    assert f"{len(SAMPLES) + 1}/{len(SAMPLES) + 1} verdicts" in out
    assert "chat.messages.dlq: 2 of 2 bad records" in out
    # The worker's own count, logged when it stops, says the same.
    assert "verdicts, 2 dead letters" in proc.stderr.decode()
