"""Deployment files against the code: both sides must change together.

Docker does not run on the build machines and there is no cluster, so these files are
kept honest here: they parse, and every environment variable they set is one the code
reads, every probe hits a path the worker serves on the port it listens on, every
command is one the CLI has, every name one object uses for another matches.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from moderation import cli
from moderation.config import (
    Source,
    cache_settings,
    classifier_settings,
    client_settings,
    worker_settings,
)
from moderation.health import HealthServer

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"


class RecordingSource(Source):
    """Remembers every setting name the code asks for."""

    def __init__(self) -> None:
        super().__init__({})
        self.asked: set[str] = set()

    def get(self, name: str) -> Any:
        self.asked.add("MODERATION_" + name)
        return super().get(name)


def variables_read() -> set[str]:
    """Every MODERATION_* variable the code reads: asked of Source, or named outright."""
    src = RecordingSource()
    for read in (classifier_settings, worker_settings, cache_settings, client_settings):
        read(src)
    names = set(src.asked)
    for path in (ROOT / "moderation").rglob("*.py"):
        text = path.read_text()
        names |= set(re.findall(r'"(MODERATION_[A-Z0-9_]+)"', text))
        # src.integer("X", ...) and helpers called as _choice(src, "X", ...)
        asked = re.findall(r'src\.\w+\(\s*"([A-Z0-9_]+)"|\(\s*src,\s*"([A-Z0-9_]+)"', text)
        names |= {"MODERATION_" + (a or b) for a, b in asked}
    return names


READ = variables_read()


def cli_commands() -> set[str]:
    sub = next(a for a in cli.parser()._actions if a.dest == "command")
    return set(sub.choices)  # type: ignore[arg-type]


def served(path: str) -> bool:
    head = HealthServer(lambda: True).respond(path).split(b"\r\n", 1)[0]
    return b" 200 " in head


# -- the image ---------------------------------------------------------------------------


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) with line continuations joined."""
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, rest = line.partition(" ")
            out.append((op.upper(), rest.strip()))
    return out


def test_the_read_list_is_real() -> None:
    # The collector itself: a few names we know, and nothing from outside the prefix.
    assert {"MODERATION_KAFKA_BOOTSTRAP", "MODERATION_REDIS_URL", "MODERATION_API_PORT"} <= READ
    assert "MODERATION_NO_SUCH_SETTING" not in READ


def test_dockerfile_entry_point_and_command_exist() -> None:
    ins = dockerfile()
    entry = ast.literal_eval(next(a for op, a in ins if op == "ENTRYPOINT"))
    cmd = ast.literal_eval(next(a for op, a in ins if op == "CMD"))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert entry == ["moderation"] and entry[0] in scripts
    assert cmd[0] in cli_commands()


def test_dockerfile_is_slim_non_root_and_bakes_the_model() -> None:
    ins = dockerfile()
    assert [a for op, a in ins if op == "FROM"][-1].startswith("python:3.11-slim")
    user = [a for op, a in ins if op == "USER"][-1]
    assert not user.startswith(("0", "root"))
    installs = " ".join(a for op, a in ins if op == "RUN")
    assert re.search(r"pip install (-c \S+ )?\.(\s|$)", installs)
    assert not re.search(r"\[(train|test|bench)", installs) and "torch" not in installs
    env = " ".join(a for op, a in ins if op == "ENV")
    for var in re.findall(r"(MODERATION_[A-Z_]+)=", env):
        assert var in READ, f"Dockerfile sets {var}, which the code never reads"
    # The model is baked in by the package itself: models/ installs as moderation/models,
    # so the build stage must copy it before `pip install .`, and nothing overrides it.
    assert "MODERATION_MODEL_DIR" not in env
    copies = [a.split() for op, a in ins if op == "COPY" and "--from" not in a]
    sources = {src for src, _ in (c[-2:] for c in copies)}
    assert "models" in sources
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["moderation.models"] == "models"
    assert "moderation.models" in setuptools["packages"]
    assert "-c deploy/constraints.txt" in installs and "deploy/constraints.txt" in sources
    for src in sources:
        assert (ROOT / src).exists(), f"COPY source {src} missing"
    check = next(a for op, a in ins if op == "HEALTHCHECK")
    assert "/healthz" in check and served("/healthz")
    assert "MODERATION_METRICS_PORT" in check


def test_dockerignore_lets_in_what_the_dockerfile_copies() -> None:
    allowed = {
        line.lstrip("!").rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    }
    for op, args in dockerfile():
        if op == "COPY" and "--from" not in args:
            src = args.split()[-2]
            assert src in allowed or src.split("/")[0] in allowed, f"{src} is excluded"


# -- docker compose ----------------------------------------------------------------------


def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


def test_compose_has_the_whole_stack() -> None:
    services = compose()["services"]
    assert services["kafka"]["image"].startswith("apache/kafka:")
    assert "controller" in services["kafka"]["environment"]["KAFKA_PROCESS_ROLES"]  # KRaft
    assert services["redis"]["image"].startswith("redis:")
    assert services["worker"]["deploy"]["replicas"] == 2
    assert {"prometheus", "grafana", "send-api"} <= set(services)


def test_compose_environment_is_read_and_consistent() -> None:
    services = compose()["services"]
    for name in ("worker", "send-api"):
        env = services[name]["environment"]
        for var in env:
            assert var in READ, f"compose {name} sets {var}, which the code never reads"
        assert services[name]["command"][0] in cli_commands()
    worker = services["worker"]["environment"]
    api = services["send-api"]["environment"]
    assert worker["MODERATION_KAFKA_BOOTSTRAP"] == api["MODERATION_KAFKA_BOOTSTRAP"]
    assert worker["MODERATION_INPUT_TOPIC"] == api["MODERATION_INPUT_TOPIC"]
    assert worker["MODERATION_VERDICT_TOPIC"] == api["MODERATION_VERDICT_TOPIC"]
    # kafka-init creates exactly the topics the worker uses.
    init = " ".join(services["kafka-init"]["command"])
    for var in ("MODERATION_INPUT_TOPIC", "MODERATION_VERDICT_TOPIC", "MODERATION_DLQ_TOPIC"):
        assert f"{worker[var]}:" in init
    grace = float(worker["MODERATION_SHUTDOWN_GRACE_S"])
    assert float(services["worker"]["stop_grace_period"].rstrip("s")) > grace
    port = api["MODERATION_API_PORT"]
    assert f"{port}:{port}" in services["send-api"]["ports"]
    assert f":{port}/healthz" in " ".join(services["send-api"]["healthcheck"]["test"])


def test_compose_monitoring_points_at_real_files_and_ports() -> None:
    services = compose()["services"]
    for svc in ("prometheus", "grafana"):
        for volume in services[svc]["volumes"]:
            src = volume.split(":")[0]
            assert (DEPLOY / src).exists(), f"{svc} mounts missing {src}"
    prom = yaml.safe_load((DEPLOY / "compose" / "prometheus.yml").read_text())
    port = int(services["worker"]["environment"]["MODERATION_METRICS_PORT"])
    job = next(j for j in prom["scrape_configs"] if j["job_name"] == "moderation")
    assert job["dns_sd_configs"][0]["names"] == ["worker"]
    assert job["dns_sd_configs"][0]["port"] == port
    assert served(job["metrics_path"])
    # The rules it loads are the ones deploy/prometheus ships.
    for rule in prom["rule_files"]:
        assert (DEPLOY / "prometheus" / rule).is_file()


# -- Kubernetes ----------------------------------------------------------------------------


def base_documents() -> list[dict[str, Any]]:
    kust = yaml.safe_load((K8S / "base" / "kustomization.yaml").read_text())
    docs = []
    for res in kust["resources"]:
        docs += [d for d in yaml.safe_load_all((K8S / "base" / res).read_text()) if d]
    return docs


def overlay_documents(tmp: Path) -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with kustomize) is not installed: overlay not rendered")
    copy = tmp / "k8s"
    shutil.copytree(K8S, copy)
    example = copy / "overlays" / "production" / "credentials.env.example"
    shutil.copy(example, example.with_name("credentials.env"))
    out = subprocess.run(
        [kubectl, "kustomize", str(copy / "overlays" / "production")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def credentials_example() -> dict[str, str]:
    path = K8S / "overlays" / "production" / "credentials.env.example"
    pairs = (
        line.split("=", 1)
        for line in path.read_text().splitlines()
        if line and not line.startswith("#")
    )
    return dict(pairs)  # type: ignore[arg-type]


def one(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and name in (None, d["metadata"]["name"])]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def check_manifests(docs: list[dict[str, Any]]) -> None:
    deploy = one(docs, "Deployment")
    config = one(docs, "ConfigMap")["data"]
    pod = deploy["spec"]["template"]
    spec = pod["spec"]
    (worker,) = spec["containers"]
    assert worker["args"][0] in cli_commands()
    # Every variable the ConfigMap and the credentials set is one the worker reads.
    for var in [*config, *credentials_example()]:
        assert var in READ, f"{var} is set for the worker but never read"
    refs = {next(iter(e)) + ":" + next(iter(e.values()))["name"] for e in worker["envFrom"]}
    assert refs == {
        f"configMapRef:{one(docs, 'ConfigMap')['metadata']['name']}",
        "secretRef:moderation-credentials",
    }
    # Guaranteed QoS: whole CPUs, requests equal limits; one inference thread per CPU.
    res = worker["resources"]
    assert res["requests"] == res["limits"]
    assert res["limits"]["cpu"] == "4" == config["MODERATION_THREADS"]
    # AVX-512 VNNI nodes only, in a dedicated pool, and the worker refuses anything else.
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    expr = terms["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert expr["key"] == "feature.node.kubernetes.io/cpu-cpuid.AVX512VNNI"
    assert expr["values"] == ["true"]
    assert config["MODERATION_REQUIRE_VNNI"] == "true"
    assert {"key": "dedicated", "operator": "Equal", "value": "moderation"}.items() <= (
        spec["tolerations"][0].items()
    )
    # Probes hit paths the worker serves, on the port it listens on.
    ports = {p["name"]: p["containerPort"] for p in worker["ports"]}
    assert ports["metrics"] == int(config["MODERATION_METRICS_PORT"])
    for probe, path in (
        ("livenessProbe", "/healthz"),
        ("readinessProbe", "/readyz"),
        ("startupProbe", "/healthz"),
    ):
        assert worker[probe]["httpGet"]["path"] == path and served(path)
        assert worker[probe]["httpGet"]["port"] in ports
    assert spec["terminationGracePeriodSeconds"] > float(config["MODERATION_SHUTDOWN_GRACE_S"])
    # The Kafka CA file is where a mounted secret puts it.
    ca = config["MODERATION_KAFKA_SSL_CAFILE"]
    mounts = {m["name"]: m["mountPath"] for m in worker["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    holder = next(n for n, m in mounts.items() if ca.startswith(m + "/"))
    assert volumes[holder]["secret"]["secretName"] == "moderation-kafka-ca"
    # Selectors: PDB, Service, ServiceMonitor all find the worker pods.
    labels = pod["metadata"]["labels"]
    for kind in ("PodDisruptionBudget",):
        assert one(docs, kind)["spec"]["selector"]["matchLabels"].items() <= labels.items()
    service = one(docs, "Service")
    assert service["spec"]["selector"].items() <= labels.items()
    monitor = one(docs, "ServiceMonitor")
    assert (
        monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    )
    assert monitor["spec"]["endpoints"][0]["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert served(monitor["spec"]["endpoints"][0]["path"])
    # Autoscaling on the lag of the group and topic the worker consumes.
    scaled = one(docs, "ScaledObject")
    assert scaled["spec"]["scaleTargetRef"]["name"] == deploy["metadata"]["name"]
    trigger = scaled["spec"]["triggers"][0]["metadata"]
    assert trigger["consumerGroup"] == config["MODERATION_GROUP_ID"]
    assert trigger["topic"] == config["MODERATION_INPUT_TOPIC"]
    assert trigger["bootstrapServers"] == config["MODERATION_KAFKA_BOOTSTRAP"]
    auth = one(docs, "TriggerAuthentication")
    for ref in auth["spec"]["secretTargetRef"]:
        if ref["name"] == "moderation-credentials":
            assert ref["key"] in credentials_example()


def test_kubernetes_base() -> None:
    check_manifests(base_documents())


def test_kubernetes_production_overlay(tmp_path: Path) -> None:
    docs = overlay_documents(tmp_path)
    check_manifests(docs)
    assert {d["metadata"].get("namespace") for d in docs if d["kind"] != "Namespace"} == {
        "moderation"
    }
    image = one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == "registry.example.com/moderation:0.1.0"
    secret = one(docs, "Secret", "moderation-credentials")
    assert set(secret["data"]) == set(credentials_example())


def test_every_metric_the_rules_name_is_one_the_code_exports() -> None:
    """An alert on a misspelt series never fires: each moderation_* name in the
    recording and alerting rules must be a series the worker or client exports."""
    import re

    from moderation import metrics

    metrics.expose_worker()
    metrics.expose_client()
    exported = {
        sample.name
        for family in metrics.REGISTRY.collect()
        for sample in family.samples
        if sample.name.startswith("moderation_")
    } | {
        family.name + suffix
        for family in metrics.REGISTRY.collect()
        for suffix in ("", "_total", "_bucket", "_count", "_sum")
    }
    rules = DEPLOY / "prometheus" / "rules"
    text = "\n".join(p.read_text() for p in sorted(rules.glob("*.yml")))
    named = set(re.findall(r"\b(moderation_[a-z0-9_]+)", text))
    assert "moderation_undeliverable_total" in named
    assert named <= exported, f"rules name series nobody exports: {sorted(named - exported)}"
