"""`moderation classify` as a user runs it: a subprocess, JSON lines out."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import orjson


def run(
    args: list[str], stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "moderation.cli", "classify", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_arguments_give_one_json_object_each() -> None:
    proc = run(["see you tomorrow!", "you stupid worthless idiot"])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = [orjson.loads(line) for line in proc.stdout.splitlines()]
    assert [r["decision"] for r in rows] == ["allow", "nudge"]
    assert rows[0]["text_sha256"] == hashlib.sha256(b"see you tomorrow!").hexdigest()
    for r in rows:
        assert {"text_sha256", "decision", "scores", "tokens", "model"} <= set(r)
        assert "text" not in r  # chat text is not echoed by default
        assert "toxic" in r["scores"]


def test_stdin_lines_with_bad_ones_keep_going() -> None:
    stdin = b"hello there\n\n   \nbad \xff byte\nok bye\n"
    proc = run([], stdin)
    rows = [orjson.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 5
    assert [r.get("error") for r in rows] == [None, "empty_text", "empty_text", None, None]
    assert rows[3]["text_sha256"] == hashlib.sha256(b"bad \xff byte").hexdigest()
    assert proc.returncode == 1  # some lines rejected, the rest answered


def test_threshold_override_changes_the_decision() -> None:
    proc = run(["see you tomorrow!"], env={"MODERATION_THRESHOLDS": "toxic=0.0"})
    assert orjson.loads(proc.stdout)["decision"] == "nudge"


def test_bad_setting_is_one_clear_line_and_exit_2() -> None:
    proc = run(["hi"], env={"MODERATION_THRESHOLDS": "spam=0.5"})
    assert proc.returncode == 2
    assert b"names labels the model lacks: ['spam']" in proc.stderr
    assert proc.stdout == b""


def test_show_text_survives_invalid_utf8_on_stdin() -> None:
    proc = run(["--show-text"], b"ok \xff\xfe bad\nfine\n")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    rows = [orjson.loads(line) for line in proc.stdout.splitlines()]
    # Shown as the model read it (U+FFFD for each bad byte); hashed as it arrived.
    assert [r["text"] for r in rows] == ["ok \ufffd\ufffd bad", "fine"]
    assert rows[0]["text_sha256"] == hashlib.sha256(b"ok \xff\xfe bad").hexdigest()


def test_version() -> None:
    from moderation import __version__

    proc = subprocess.run(
        [sys.executable, "-m", "moderation.cli", "--version"], capture_output=True, timeout=60
    )
    assert proc.returncode == 0 and proc.stdout.decode().strip() == f"moderation {__version__}"


def test_eval_without_data_says_what_it_needs_before_loading_the_model(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "moderation.cli", "eval"]
    missing = subprocess.run(base, capture_output=True, timeout=120, check=False)
    assert missing.returncode == 2
    assert b"eval needs --data (the shared data folder), or --only behaviour" in missing.stderr
    assert b"loaded" not in missing.stderr  # refused before the model was read
    evasion = subprocess.run(
        [*base, "--only", "evasion"], capture_output=True, timeout=120, check=False
    )
    assert evasion.returncode == 2 and b"eval needs --data" in evasion.stderr
    wrong = subprocess.run(
        [*base, "--data", str(tmp_path / "absent")], capture_output=True, timeout=120, check=False
    )
    assert wrong.returncode == 2
    assert b"absent: no such folder" in wrong.stderr
    alone = subprocess.run(
        [*base, "--validation-only"], capture_output=True, timeout=120, check=False
    )
    assert alone.returncode == 2
    assert b"eval --validation-only needs --data (the shared data folder)" in alone.stderr
    assert b"or --only behaviour" not in alone.stderr  # --only is refused beside it
    for extra in (["--write"], ["--only", "evasion"]):
        stored = subprocess.run(
            [*base, "--data", str(tmp_path), "--validation-only", *extra],
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert stored.returncode == 2, extra
        assert b"--validation-only prints the splits a build may be picked by" in stored.stderr
        assert b"loaded" not in stored.stderr


def test_screen_ratio_refuses_bad_arguments_before_loading_a_model(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "moderation.cli", "screen-ratio"]
    absent = subprocess.run(
        [*base, "--data", str(tmp_path / "absent")], capture_output=True, timeout=120, check=False
    )
    assert absent.returncode == 2
    assert b"absent: no such folder (the shared data sets)" in absent.stderr
    assert b"loaded" not in absent.stderr
    none = subprocess.run(
        [*base, "--data", str(tmp_path), "--chat-messages", "0"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert none.returncode == 2 and b"--chat-messages 0: give 1 or more" in none.stderr
    screen = subprocess.run(
        [*base, str(tmp_path / "no-screen"), "--data", str(tmp_path)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert screen.returncode == 2
    assert b"no-screen: no such folder (a screen's model folder)" in screen.stderr
