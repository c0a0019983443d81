"""The worker's CPU check: report always, refuse without VNNI only when asked."""

from __future__ import annotations

import pytest

from moderation.config import Source, classifier_settings
from moderation.cpu import CpuInfo, UnsupportedCpuError, check_cpu

OLD = CpuInfo(usable_cores=4, avx512=True, vnni=False, model_name="Xeon Skylake")
NEW = CpuInfo(usable_cores=4, avx512=True, vnni=True, model_name="Xeon Cascade Lake")


def test_refuses_without_vnni_only_when_required() -> None:
    check_cpu(OLD, require_vnni=False)
    check_cpu(NEW, require_vnni=True)
    with pytest.raises(UnsupportedCpuError, match=r"MODERATION_REQUIRE_VNNI.*Skylake"):
        check_cpu(OLD, require_vnni=True)


def test_require_vnni_setting() -> None:
    assert classifier_settings(Source({})).require_vnni is False
    assert classifier_settings(Source({"MODERATION_REQUIRE_VNNI": "true"})).require_vnni is True
