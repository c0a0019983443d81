"""The two-tier verdict cache's settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from moderation.config.source import PREFIX, Source
from moderation.errors import ConfigError

# Roblox cached one million entries in process; 100k score rows is ~20 MB here.
DEFAULT_CACHE_LOCAL_ENTRIES = 100_000
DEFAULT_CACHE_TTL_S = 24 * 3600
# A Redis hit over loopback takes well under a millisecond; 5 ms caps a sick Redis's
# cost at a tenth of the default budget.
DEFAULT_REDIS_TIMEOUT_MS = 5


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """The two-tier verdict cache."""

    enabled: bool = True
    redis_url: str | None = field(default=None, repr=False)  # may hold a password
    namespace: str = "moderation"
    local_entries: int = DEFAULT_CACHE_LOCAL_ENTRIES
    ttl_s: int = DEFAULT_CACHE_TTL_S
    redis_timeout_ms: int = DEFAULT_REDIS_TIMEOUT_MS


def cache_settings(source: Source | None = None) -> CacheSettings:
    """Cache settings from the environment and the config file, validated."""
    src = source or Source()
    url = src.get("REDIS_URL")
    if url is not None:
        url = str(url).strip()
        if not url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"{PREFIX}REDIS_URL must start with redis://, rediss:// or unix://")
    namespace = str(src.get("CACHE_NAMESPACE") or "moderation")
    if not namespace or any(c.isspace() for c in namespace) or len(namespace) > 64:
        raise ConfigError(f"{PREFIX}CACHE_NAMESPACE={namespace!r}: 1..64 characters, no spaces")
    return CacheSettings(
        enabled=src.boolean("CACHE", True),
        redis_url=url or None,
        namespace=namespace,
        local_entries=src.integer(
            "CACHE_LOCAL_ENTRIES", DEFAULT_CACHE_LOCAL_ENTRIES, 0, 10_000_000
        ),
        ttl_s=src.integer("CACHE_TTL_S", DEFAULT_CACHE_TTL_S, 1, 30 * 24 * 3600),
        redis_timeout_ms=src.integer("REDIS_TIMEOUT_MS", DEFAULT_REDIS_TIMEOUT_MS, 1, 1000),
    )
