from pathlib import Path

import pytest

from moderation.bench.stats import replace_section


def test_a_new_cpu_kind_gets_its_own_section_beside_the_others() -> None:
    doc = "# B\n\n<!-- m-avx2:start -->\nold\n<!-- m-avx2:end -->\n\n## Next\n"
    out = replace_section(doc, "m-avx512-vnni", "new", sibling="m")
    assert out.index("m-avx2:end") < out.index("m-avx512-vnni:start") < out.index("## Next")
    again = replace_section(out, "m-avx2", "fresh", sibling="m")
    assert "old" not in again and "fresh" in again and "new" in again


def test_no_sibling_appends_at_the_end() -> None:
    out = replace_section("# B\n", "x-avx2", "body", sibling="x")
    assert out.endswith("<!-- x-avx2:start -->\nbody\n<!-- x-avx2:end -->\n")


def test_an_emulated_cpu_writes_no_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moderation import cpu
    from moderation.bench import stats

    fake = cpu.CpuInfo(2, False, False, "Xeon", avx2=True, emulated=True)
    monkeypatch.setattr(cpu, "cpu_info", lambda: fake)
    docs = tmp_path / "benchmarks.md"
    with pytest.raises(RuntimeError, match="emulated"):
        stats.write_docs_section(docs, "bench-model", "| a |")
    assert not docs.exists()
