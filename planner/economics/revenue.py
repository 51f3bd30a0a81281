"""Revenue: what served tokens and finished training runs are worth, and what is lost.

Tokens are output tokens (the planner's unit of demand); a workload's prompts ride on
them: ``r_in`` input tokens per output token, a share ``c`` of them read from the
prefix cache. A price quoted per input and per output token is therefore one price
per *output* Mtok::

    revenue per output Mtok = p_out + r_in · ((1 − c) · p_in + c · p_cached)

(a blended ``price_usd_per_mtok`` is that figure given directly). Revenue of a period
is served output Mtok × that price; lost revenue, unmet output Mtok × that price. A
training run's ``value_usd`` is earned pro rata to the work done, booked in the
window's last period (where its unmet work is priced too).

The investment measures built on revenue (IRR, payback) are in
:mod:`planner.economics.returns`.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.units import MTOK


@dataclass(frozen=True)
class TokenPrices:
    """A workload's prices in one period, USD per million tokens of each kind."""

    output_usd_per_mtok: float
    input_usd_per_mtok: float = 0.0
    cached_input_usd_per_mtok: float = 0.0


def revenue_usd_per_output_mtok(
    prices: TokenPrices, input_tokens_per_output_token: float, cache_hit_rate: float
) -> float:
    """Revenue per million output tokens served, prompts included, USD:
    ``p_out + r_in · ((1 − c) · p_in + c · p_cached)``."""
    prompt = (1.0 - cache_hit_rate) * prices.input_usd_per_mtok
    prompt += cache_hit_rate * prices.cached_input_usd_per_mtok
    return prices.output_usd_per_mtok + input_tokens_per_output_token * prompt


def revenue_usd(tokens: float, usd_per_mtok: float) -> float:
    """USD earned for ``tokens`` output tokens at ``usd_per_mtok`` per output Mtok."""
    return tokens / MTOK * usd_per_mtok


def run_revenue_usd(value_usd: float, flops_done: float, flops_required: float) -> float:
    """Revenue of a training run: its value times the share of its work done."""
    if flops_required <= 0:
        return value_usd
    return value_usd * min(1.0, max(0.0, flops_done / flops_required))


def lost_run_revenue_usd(value_usd: float, unmet_flops: float, flops_required: float) -> float:
    """Revenue a training run forgoes: its value times the share of its work left undone."""
    if flops_required <= 0:
        return 0.0
    return value_usd * min(1.0, max(0.0, unmet_flops / flops_required))
