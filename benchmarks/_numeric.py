"""Numeric JSON for the indexing benchmark, generated: this machine holds no such files.

These are the shapes metrics, map and measurement APIs answer with. Their numbers are
mostly distinct terms, which is the slowest text for FTS5 to index; and they nest many
small arrays, which is the slowest JSON to chunk.
"""

import json
import random
from collections.abc import Callable


def _series(rng: random.Random, number: int) -> dict:
    """One time series of a Prometheus range query: [timestamp, "value"] pairs."""
    return {
        "metric": {"__name__": "http_requests_total", "job": "api", "instance": f"10.0.0.{number}"},
        "values": [[1_700_000_000 + 15 * k, f"{rng.uniform(0, 500):.3f}"] for k in range(240)],
    }


def _feature(rng: random.Random, number: int) -> dict:
    """A GeoJSON polygon: a ring of [longitude, latitude] pairs."""
    ring = [[rng.uniform(-180, 180), rng.uniform(-90, 90)] for _ in range(40)]
    return {
        "type": "Feature",
        "properties": {"name": f"parcel {number}", "area": rng.uniform(10, 1e5)},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


def _reading(rng: random.Random, number: int) -> dict:
    """A sensor reading: ten floats."""
    values = {f"v{k}": rng.uniform(-1000, 1000) for k in range(10)}
    return {"id": number, "sensor": f"s-{number % 97}", **values}


def _counts(rng: random.Random, number: int) -> dict:
    """A record with an array of twenty integers."""
    return {"id": number, "counts": [rng.randint(0, 10**6) for _ in range(20)]}


def _prometheus(items: list) -> dict:
    return {"status": "success", "data": {"resultType": "matrix", "result": items}}


def _feature_collection(items: list) -> dict:
    return {"type": "FeatureCollection", "features": items}


SHAPES: dict[str, tuple[Callable[[random.Random, int], dict], Callable[[list], object]]] = {
    "time series": (_series, _prometheus),
    "GeoJSON": (_feature, _feature_collection),
    "float records": (_reading, list),
    "integer arrays": (_counts, list),
}


def numeric_json(shape: str, size: int, skip: int = 0) -> str:
    """A compact JSON document of `shape` of about `size` bytes; `skip` varies the numbers."""
    make_item, wrap = SHAPES[shape]
    rng = random.Random(f"{shape}/{skip}")
    items: list[dict] = []
    total = 0
    while total < size:
        item = make_item(rng, len(items))
        items.append(item)
        total += len(json.dumps(item, separators=(",", ":"))) + 1
    return json.dumps(wrap(items), separators=(",", ":"))
