"""Fine-tune only: `python scripts/train_model.py --data ../shared/data`."""

from __future__ import annotations

import argparse
import logging
from dataclasses import fields
from pathlib import Path

from moderation.build.train import TrainSettings, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=Path("build/train"))
    for f in fields(TrainSettings):
        parser.add_argument(
            f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default
        )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    settings = TrainSettings(**{f.name: getattr(args, f.name) for f in fields(TrainSettings)})
    print(train(args.data, args.out, settings))


if __name__ == "__main__":
    main()
