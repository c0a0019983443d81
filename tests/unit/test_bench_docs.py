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


def test_a_process_refused_its_amx_tiles_writes_no_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moderation import cpu
    from moderation.bench import stats

    fake = cpu.CpuInfo(2, True, True, "Intel(R) Xeon(R) Processor", avx2=True, amx_refused=True)
    monkeypatch.setattr(cpu, "cpu_info", lambda: fake)
    docs = tmp_path / "benchmarks.md"
    with pytest.raises(RuntimeError, match="AMX"):
        stats.write_docs_section(docs, "bench-model", "| a |")
    assert not docs.exists()


def test_one_kind_on_two_vendors_keeps_two_sections_each_naming_its_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moderation import cpu
    from moderation.bench import stats

    docs = tmp_path / "benchmarks.md"
    machines = [
        cpu.CpuInfo(2, True, True, "Intel(R) Xeon(R) Processor", avx2=True),
        cpu.CpuInfo(2, True, True, "AMD EPYC 9R14", avx2=True),
    ]
    for machine, figure in zip(machines, ("| 1.30 |", "| 0.90 |"), strict=True):
        monkeypatch.setattr(cpu, "cpu_info", lambda m=machine: m)
        stats.write_docs_section(docs, "bench-spin", f"CPU: process time.\n\n{figure}")
    doc = docs.read_text()
    intel = doc.split("<!-- bench-spin-avx512-vnni-intel:start -->")[1].split(":end")[0]
    amd = doc.split("<!-- bench-spin-avx512-vnni-amd:start -->")[1].split(":end")[0]
    assert "On avx512-vnni, Intel" in intel and "| 1.30 |" in intel
    assert "CPU: Intel(R) Xeon(R) Processor (2 usable cores" in intel
    assert "On avx512-vnni, AMD" in amd and "| 0.90 |" in amd and "CPU: AMD EPYC 9R14" in amd
    assert doc.index("vnni-intel:end") < doc.index("vnni-amd:start")


def test_an_amx_machine_leaves_the_same_vendors_vnni_figures_standing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moderation import cpu
    from moderation.bench import stats

    docs = tmp_path / "benchmarks.md"
    name = "Intel(R) Xeon(R) Processor"
    machines = [
        cpu.CpuInfo(2, True, True, name, avx2=True),
        cpu.CpuInfo(2, True, True, name, avx2=True, amx=True),
    ]
    for machine, figure in zip(machines, ("| 1.30 |", "| 0.70 |"), strict=True):
        monkeypatch.setattr(cpu, "cpu_info", lambda m=machine: m)
        stats.write_docs_section(docs, "bench-model", f"CPU: process time.\n\n{figure}")
    doc = docs.read_text()
    vnni = doc.split("<!-- bench-model-avx512-vnni-intel:start -->")[1].split(":end")[0]
    amx = doc.split("<!-- bench-model-avx512-vnni-amx-intel:start -->")[1].split(":end")[0]
    assert "| 1.30 |" in vnni and "AMX" not in vnni
    assert "| 0.70 |" in amx and "AMX-int8 yes" in amx and "On avx512-vnni with AMX" in amx


def test_every_section_of_the_docs_names_its_cpu_and_vendor() -> None:
    import re

    root = Path(__file__).resolve().parents[2] / "docs"
    for page in ("benchmarks.md", "reliability.md"):
        text = (root / page).read_text()
        sections = re.findall(r"<!-- (\S+?):start -->(.*?)<!-- \1:end -->", text, re.S)
        assert sections, page
        for marker, body in sections:
            assert re.search(r"-(intel|amd|other)$", marker), marker
            assert "CPU: " in body and "usable cores" in body, marker
