"""The response compressor behind `tool_results.compress_result`, and what one compression
reports: what the gateway extends (its traced compressor) and follows (indexing's end)."""

from indexing.engine.compressor import Compression, ResponseCompressor
from indexing.engine.stats import CompressionStats

__all__ = ["Compression", "CompressionStats", "ResponseCompressor"]
