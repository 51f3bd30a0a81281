"""Compressed attention (DeepSeek-V4): KV entries held and attended, by hand."""

from __future__ import annotations

import pytest

from planner.catalog import model_catalog
from planner.perf.roofline import decode_attention_flops_per_token, kv_bytes_per_sequence


def test_deepseek_v4_compressed_kv_is_a_tenth_of_mla_at_a_million_tokens() -> None:
    """DeepSeek-V4-Pro (report section 2.3): one shared 512-dim key/value entry (fp8:
    512 B) per 4 tokens in 30 layers and per 128 tokens in 31, plus the last 128 tokens
    in every layer. Hand, at L = 1,048,576: 30 · (262,144 + 128) + 31 · (8,192 + 128) =
    7,868,160 + 257,920 = 8,126,080 entries · 512 B = 4.16 GB; DeepSeek-V3's MLA holds
    61 · 576 B a token = 36.8 GB: 11.3% (the report: about 10% of V3.2's)."""
    models = model_catalog()
    v4, v3 = models["deepseek-v4"], models["deepseek-v3"]
    length = 1_048_576
    v4_bytes = float(kv_bytes_per_sequence(v4, length, "fp8"))
    assert v4_bytes == pytest.approx(8_126_080 * 512)
    assert v4_bytes / float(kv_bytes_per_sequence(v3, length, "fp8")) == pytest.approx(
        0.113, abs=0.002
    )
    # a query attends to the top 1,024 entries of a sparse layer, not all 262,144:
    # 30 · (1,024 + 128) + 31 · (8,192 + 128) = 292,480 entries · 4 · 128 · 512 FLOPs
    assert float(decode_attention_flops_per_token(v4, length)) == pytest.approx(
        292_480 * 4 * 128 * 512
    )
