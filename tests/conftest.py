"""Shared fixtures: the shipped model, loaded once per session."""

from __future__ import annotations

import pytest

from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, default_model_dir


@pytest.fixture(scope="session")
def classifier() -> Classifier:
    """The committed int8 model, two threads."""
    return Classifier(ClassifierSettings(model_dir=default_model_dir(), threads=2))
