"""The file to hand to ``spark-submit``: the Spark replay, with the cluster's master.

    job=$(python -c 'import moderation.spark.job as j; print(j.__file__)')
    spark-submit [spark options] "$job" INPUT... --output OUT.parquet [replay options]

Takes the options of ``moderation replay --engine spark`` (docs/replay.md); leave out
``--master``: spark-submit's ``--master`` decides where the job runs.
"""

from __future__ import annotations

import sys

from moderation.cli import main

if __name__ == "__main__":
    sys.exit(main(["replay", "--engine", "spark", *sys.argv[1:]]))
