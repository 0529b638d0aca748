"""The figures a run measures, as plain data (written to the report and to JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field

# ----------------------------------------------------------------------------------- figures


@dataclass
class LatencyFigures:
    size: int
    seed_seconds: float
    requests: int
    median_ms: float
    p95_ms: float
    respondents_reported: int


@dataclass
class ExportFigures:
    size: int
    rows: int
    seconds: float
    bytes: int
    rows_per_second: float
    rss_before_mib: float
    peak_rss_mib: float
    error: str | None = None


@dataclass
class ThroughputFigures:
    seconds: float
    client_threads: int
    workers: int
    accepted: int
    failed: int
    per_second: float
    outcomes: dict[str, int]


@dataclass
class Resource:
    url: str
    kind: str
    status: int
    body_bytes: int
    transfer_bytes: int


@dataclass
class PageFigures:
    requests: int
    body_bytes: int
    transfer_bytes: int
    resources: list[Resource]
    external: list[str]
    errors: list[str]


@dataclass
class ConsistencyFigures:
    seeded: int
    stored_rows: int
    respondents: int
    tallies_match_rows: bool
    tallies_match_seeded: bool
    consistent: bool = field(init=False)

    def __post_init__(self):
        self.consistent = (
            self.tallies_match_rows
            and self.tallies_match_seeded
            and self.seeded == self.stored_rows == self.respondents
        )


@dataclass
class Verdict:
    key: str
    passed: bool
    #: How far from the target, computed; empty when passed.
    shortfall: str = ""
    #: False when the figure could not be taken (then ``passed`` is False too).
    measured: bool = True


@dataclass
class DatabaseFigures:
    name: str
    version: str
    workers: int
    latency: list[LatencyFigures] = field(default_factory=list)
    export: ExportFigures | None = None
    app_throughput: ThroughputFigures | None = None
    bare_throughput: ThroughputFigures | None = None
    page: PageFigures | None = None
    consistency: ConsistencyFigures | None = None
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    #: Markdown of the profile of each missed target's path, by target key.
    profiles: dict[str, str] = field(default_factory=dict)

    @property
    def throughput_ratio(self) -> float | None:
        if not self.app_throughput or not self.bare_throughput:
            return None
        if self.bare_throughput.per_second == 0:
            return None
        return self.app_throughput.per_second / self.bare_throughput.per_second


@dataclass
class BenchReport:
    machine: dict[str, str]
    options: dict[str, object]
    databases: list[DatabaseFigures]
    started: str
    seconds: float
