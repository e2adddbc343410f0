"""Scraping a live gateway's /metrics and reading the answer with prometheus_client's parser."""

from __future__ import annotations

from collections import Counter

import httpx2
from prometheus_client.parser import text_string_to_metric_families

METRICS_TOKEN = "test-metrics-token-0123456789abcdef"


def metrics_url(mcp_url: str) -> str:
    """/metrics beside a gateway's /mcp."""
    return mcp_url.removesuffix("/mcp") + "/metrics"


def scrape(mcp_url: str, token: str | None = METRICS_TOKEN) -> httpx2.Response:
    """GET /metrics of the gateway at `mcp_url`, with this bearer token (None: without)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx2.get(metrics_url(mcp_url), headers=headers, timeout=30)


class Samples(Counter):
    """(sample name, labels) -> value of one scrape; absent samples read 0."""

    @classmethod
    def parse(cls, text: str) -> Samples:
        samples = cls()
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                samples[sample.name, frozenset(sample.labels.items())] = sample.value
        return samples

    def value(self, name: str, **labels: str) -> float:
        return self[name, frozenset(labels.items())]

    def total(self, name: str, **labels: str) -> float:
        """The sum over every sample of `name` whose labels include `labels`."""
        wanted = set(labels.items())
        return sum(v for (n, found), v in self.items() if n == name and wanted <= found)


def samples(mcp_url: str) -> Samples:
    """One successful scrape, parsed."""
    answer = scrape(mcp_url)
    assert answer.status_code == 200, answer.text
    return Samples.parse(answer.text)
