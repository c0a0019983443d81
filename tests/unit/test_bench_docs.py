from pathlib import Path
from typing import Any

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


@pytest.mark.parametrize(
    ("flags", "why"),
    [
        ({"avx512": False, "vnni": False, "emulated": True}, "emulated"),
        ({"avx512": True, "vnni": True, "amx_refused": True}, "AMX"),
    ],
    ids=["emulated CPU", "AMX tiles refused"],
)
def test_a_process_whose_int8_path_is_not_its_cpus_writes_no_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: dict[str, bool], why: str
) -> None:
    from moderation import cpu
    from moderation.bench import stats

    fake = cpu.CpuInfo(2, model_name="Intel(R) Xeon(R) Processor", avx2=True, **flags)
    monkeypatch.setattr(cpu, "cpu_info", lambda: fake)
    docs = tmp_path / "benchmarks.md"
    with pytest.raises(RuntimeError, match=why):
        stats.write_docs_section(docs, "bench-model", "| a |")
    assert not docs.exists()


def _two_machines_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, machines: list[Any], marker: str
) -> tuple[str, dict[str, str]]:
    """Each machine writes its figure (| 1 |, | 2 |) into ``marker``'s sections: the
    page, and each section's body by its marker."""
    import re

    from moderation import cpu
    from moderation.bench import stats

    docs = tmp_path / "benchmarks.md"
    for i, machine in enumerate(machines, 1):
        monkeypatch.setattr(cpu, "cpu_info", lambda m=machine: m)
        stats.write_docs_section(docs, marker, f"CPU: process time.\n\n| {i} |")
    doc = docs.read_text()
    return doc, dict(re.findall(r"<!-- (\S+?):start -->(.*?)<!-- \1:end -->", doc, re.S))


def test_one_kind_on_two_vendors_keeps_two_sections_each_naming_its_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moderation.cpu import CpuInfo

    machines = [
        CpuInfo(2, True, True, "Intel(R) Xeon(R) Processor", avx2=True),
        CpuInfo(2, True, True, "AMD EPYC 9R14", avx2=True),
    ]
    doc, sections = _two_machines_write(tmp_path, monkeypatch, machines, "bench-spin")
    intel, amd = sections["bench-spin-avx512-vnni-intel"], sections["bench-spin-avx512-vnni-amd"]
    assert "On avx512-vnni, Intel" in intel and "| 1 |" in intel
    assert "CPU: Intel(R) Xeon(R) Processor (2 usable cores" in intel
    assert "On avx512-vnni, AMD" in amd and "| 2 |" in amd and "CPU: AMD EPYC 9R14" in amd
    assert doc.index("vnni-intel:end") < doc.index("vnni-amd:start")


def test_an_amx_machine_leaves_the_same_vendors_vnni_figures_standing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moderation.cpu import CpuInfo

    name = "Intel(R) Xeon(R) Processor"
    machines = [
        CpuInfo(2, True, True, name, avx2=True),
        CpuInfo(2, True, True, name, avx2=True, amx=True),
    ]
    _, sections = _two_machines_write(tmp_path, monkeypatch, machines, "bench-model")
    vnni, amx = (
        sections["bench-model-avx512-vnni-intel"],
        sections["bench-model-avx512-vnni-amx-intel"],
    )
    assert "| 1 |" in vnni and "AMX" not in vnni
    assert "| 2 |" in amx and "AMX-int8 yes" in amx and "On avx512-vnni with AMX" in amx


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
