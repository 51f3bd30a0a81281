"""Row types of the hardware and model catalogs.

Units are spelled in field names, in the units an analyst reads on a spec sheet
(TFLOPS, GB, TB/s, kW, USD). The performance model converts them to SI once.
Every row carries ``source`` and ``as_of``.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from planner.field_docs import DocumentedFields
from planner.text import printable_name

PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
PositiveInt = Annotated[int, Field(gt=0)]
NonNegativeInt = Annotated[int, Field(ge=0)]
AvailableFrom = Annotated[str, Field(pattern=r"^[0-9]{4}(Q[1-4]|-[0-9]{2}-[0-9]{2})$")] | dt.date
"""A quarter (``2027Q3``) or a date (``2027-08-15``, read as its quarter)."""
Fraction = Annotated[float, Field(ge=0, le=1)]
CatalogYear = Annotated[int, Field(ge=1990, le=2100)]
"""A year of a catalog row (price, release, end of sale), as a scenario's years are."""
MODEL_LAYERS_MAX = 10_000
CONTEXT_TOKENS_MAX = 1_000_000_000
ModelParams = Annotated[float, Field(gt=0, le=1e6)]
"""Parameters, billions: at most 1e6 (a quadrillion, about 500 times the largest model
of 2025); the sizes below bound an architecture likewise, far above any built, so its
memory and FLOP arithmetic stays finite."""
ModelLayers = Annotated[int, Field(gt=0, le=MODEL_LAYERS_MAX)]
"""Layers: at most 10,000."""
ModelWidth = Annotated[int, Field(gt=0, le=1_000_000)]
"""A width, head or expert count: at most 1,000,000."""
ContextTokens = Annotated[int, Field(gt=0, le=CONTEXT_TOKENS_MAX)]
"""A length in tokens: at most 1e9."""
PeakTflops = Annotated[float, Field(gt=0, le=1e7)]
"""Dense peak TFLOPS of one accelerator: at most 1e7 (ten exaFLOPS, a thousand times
today's largest part); two precisions at 1e300 overflowed the perf model's rates."""
CatalogId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", max_length=64)]

Precision = Literal["bf16", "fp8", "fp4"]
PRECISIONS: tuple[Precision, ...] = ("bf16", "fp8", "fp4")
BYTES_PER_PARAM: dict[str, float] = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}
PRECISION_BITS: dict[str, int] = {"bf16": 16, "fp8": 8, "fp4": 4}


class _Row(DocumentedFields, BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


DEFAULT_PRICE_DECLINE_PER_YEAR = 0.20
"""Catalog default decline of one SKU's list price per year after its ``price_year``.

The median, over eight NVIDIA data-centre GPUs (K40s, K80, P100 PCIe and SXM2, V100
PCIe 32 GB and SXM3 32 GB, A100 PCIe and SXM4 40 GB), of each SKU's log-linear fit of
its single-unit list price against time, 20.5 %/yr (per SKU 3-32 %/yr; pooled
within-SKU fit 24.7 %/yr): The Next Platform's list prices of each July 2012-2022
("How much of a premium will Nvidia charge for Hopper GPUs?", 2022-05-09), as compiled
in Epoch AI's training-cost-trends ``data/Hardware prices.csv``; the rows are in
``tests/data/sku-list-prices.csv``. It is the decline of a given SKU as it ages, not the
faster cross-generation FLOP/s-per-dollar trend (newer systems are their own catalog
rows). Early in a SKU's life prices fell less (median 8.7 %/yr over the first two listed
years, several rose): set ``price_decline_per_year: 0`` on a scenario's hardware to hold
the catalog price."""


class HardwareSpec(_Row):
    """One purchasable system: a server, a rack or a pod slice."""

    id: CatalogId
    """Stable lower-case kebab-case id, e.g. ``gb200-nvl72``."""
    name: Annotated[str, AfterValidator(printable_name)]
    """Marketing name, e.g. ``NVIDIA GB200 NVL72``."""
    vendor: Annotated[str, AfterValidator(printable_name)]
    """Chip vendor, e.g. ``NVIDIA``, ``AMD``, ``Google``."""
    family: Annotated[str, AfterValidator(printable_name)]
    """Accelerator family used to share calibrated efficiencies, e.g. ``hopper``."""
    form: Literal["server", "rack", "pod-slice", "card"]
    """What one purchased unit is."""
    accelerators: Annotated[int, Field(gt=0, le=100_000)]
    """Accelerators (chips) per unit (at most 100,000: a unit is a server, a rack or a
    pod slice; above it the optimiser's unit counts are no longer solvable numbers)."""
    peak_tflops_bf16: PeakTflops | None
    """Dense (no sparsity) peak TFLOPS per accelerator at bf16."""
    peak_tflops_fp8: PeakTflops | None = None
    """Dense peak TFLOPS per accelerator at fp8; None where unsupported."""
    peak_tflops_fp4: PeakTflops | None = None
    """Dense peak TFLOPS per accelerator at fp4; None where unsupported."""
    memory_gb: Annotated[float, Field(gt=0, le=1e6)]
    """HBM (or GDDR / on-chip SRAM) capacity per accelerator, GB (at most 1e6, a
    petabyte; the largest part today has 288 GB)."""
    memory_tbps: PositiveFloat
    """Memory bandwidth per accelerator, TB/s."""
    memory_kind: Literal["hbm", "gddr", "sram"] = "hbm"
    """Memory technology."""
    scale_up_domain: PositiveInt
    """Accelerators in one scale-up (NVLink / Infinity Fabric / ICI) domain."""
    scale_up_gbps: PositiveFloat | None = None
    """Scale-up bandwidth per accelerator, GB/s (one direction)."""
    scale_up_latency_us: PositiveFloat | None = None
    """Latency of one small collective (all-reduce, all-to-all) inside the scale-up
    domain, µs; None: ``planner.perf.roofline.DEFAULT_SCALE_UP_LATENCY_US``."""
    scale_out_gbps: PositiveFloat | None = None
    """Scale-out (InfiniBand / Ethernet / DCN) bandwidth per accelerator, GB/s (one
    direction); None: a replica cannot span scale-up domains."""
    scale_out_latency_us: PositiveFloat | None = None
    """Latency of one small all-to-all across scale-up domains over the scale-out
    network, µs; None: ``planner.perf.roofline.DEFAULT_SCALE_OUT_LATENCY_US``."""
    power_kw: Annotated[float, Field(gt=0, le=1e5)]
    """IT power of one unit at typical full load, kW (facility PUE not included; at most
    1e5, 100 MW: above it a site's power rows are no longer solvable numbers)."""
    price_usd: PositiveFloat
    """Price of one unit, USD, in ``price_year``."""
    price_year: CatalogYear
    """Year the price refers to."""
    price_is_estimate: bool = True
    """True where no list price is published and the figure is an analyst estimate."""
    release_year: CatalogYear
    """First year the system can be bought in volume."""
    available_from: AvailableFrom | None = None
    """First date units can be delivered, at quarter precision: ``2027Q3``, or a date
    (``2027-08-15`` means its quarter, 2027Q3); None: 1 January of ``release_year``."""
    lead_time_months: NonNegativeInt = 0
    """Months from order to delivery; capex is paid per ``finance.capex_payment``.
    0 (delivery in the period ordered) in every catalog row: lead times follow the market,
    not the SKU — H100 servers were quoted 36-52 weeks in November 2023 (Omdia, in Tom's
    Hardware, "Nvidia sold half a million H100 AI GPUs in Q3", 2023-11) and 8-12 weeks
    by Dell in April 2024 (Tom's Hardware, "Dell shaves months off lead times for
    GPU-powered AI servers", 2024-04-11, citing United Daily News) — so a scenario sets
    the lead time it is planning under (``hardware[<id>].lead_time_months``)."""
    first_year_max_units: NonNegativeFloat | None = None
    """Most units delivered (all sites) in the 12 months from ``available_from``, e.g. a
    launch allocation; None: no launch cap."""
    end_of_sale: CatalogYear | None = None
    """Last year the system can be ordered; None: no end of sale."""
    price_decline_per_year: Annotated[float, Field(ge=0, lt=1)] = DEFAULT_PRICE_DECLINE_PER_YEAR
    """List-price decline of this SKU per year once its successor ships (a fraction):
    the price of a unit ordered at t is ``price_usd · (1 − d)^max(0, t − t_s)``, t_s the
    later of ``price_year`` and the successor's first delivery; with no successor the
    price holds. Default: :data:`DEFAULT_PRICE_DECLINE_PER_YEAR`, with its source."""
    successor: CatalogId | None = None
    """Catalog id of the next generation in this part's vendor line (the part that
    replaces it, not necessarily the same form). The list price holds until the successor
    can be delivered (its ``available_from``, else 1 January of its ``release_year``),
    then declines by ``price_decline_per_year``: SKU prices fall as they age behind a
    newer part, and early in a SKU's life they fell little or rose
    (:data:`DEFAULT_PRICE_DECLINE_PER_YEAR`). None: no successor is announced, so the
    list price holds over the whole horizon."""
    availability_source: str | None = None
    """Where ``available_from``, ``end_of_sale``, ``first_year_max_units`` and
    ``successor`` come from (publication and date); required when any is set."""
    lifetime_years: Annotated[int, Field(gt=0, le=100)] = 5
    """Depreciation / useful life, years (at most 100)."""
    mfu_training: Fraction
    """Default model-FLOPs utilisation for large-scale training at bf16."""
    mfu_training_fp8: Fraction | None = None
    """Training MFU at fp8, relative to the fp8 peak; None: fp8 trains at the bf16
    sustained rate (no speed-up assumed without a published figure)."""
    mfu_training_fp4: Fraction | None = None
    """Training MFU at fp4, relative to the fp4 peak; None: as fast as fp8 (or bf16)."""
    mtbf_hours_per_accelerator: PositiveFloat
    """Mean time between job-interrupting failures per accelerator, hours."""
    prefill_only: bool = False
    """True for parts meant for prefill only (e.g. a GDDR context-processing part)."""
    source: str = Field(min_length=3)
    """Spec sheet or publication the figures come from."""
    as_of: dt.date
    """Date the figures were checked."""
    notes: str = ""
    """Caveats: estimates, assumptions, what a figure excludes."""

    def is_native(self, precision: str) -> bool:
        """True when the accelerator has tensor units at ``precision`` itself."""
        return getattr(self, f"peak_tflops_{precision}") is not None

    def compute_precision(self, precision: str) -> str | None:
        """The narrowest native precision at least as wide as ``precision`` (None: none)."""
        order = ["fp4", "fp8", "bf16"]
        for p in order[order.index(precision) :]:
            if self.is_native(p):
                return p
        return None

    def served_precision(self, precision: str) -> str | None:
        """How weights at ``precision`` are served: the precision itself where native,
        else weight-only quantisation named by weight and activation bits (``w4a8``: fp4
        weights, fp8 compute; ``w8a16``: fp8 weights, bf16 compute); None: no compute."""
        compute = self.compute_precision(precision)
        if compute is None or compute == precision:
            return compute
        return f"w{PRECISION_BITS[precision]}a{PRECISION_BITS[compute]}"

    def peak_tflops(self, precision: str) -> float | None:
        """Dense peak TFLOPS per accelerator at ``precision`` (None if unsupported).

        A part without native fp4 (or fp8) runs that precision at its next-higher
        supported rate; weights still take the smaller number of bytes.
        """
        order = ["fp4", "fp8", "bf16"]
        for p in order[order.index(precision) :]:
            value = getattr(self, f"peak_tflops_{p}")
            if value is not None:
                return float(value)
        return None


class CompressedAttention(_Row):
    """A group of layers whose KV cache keeps one entry per ``tokens_per_entry`` tokens
    (DeepSeek-V4's compressed sparse and heavily compressed attention), plus the model's
    ``compressed_window_tokens`` most recent tokens uncompressed."""

    layers: ModelLayers
    """Layers of this kind."""
    tokens_per_entry: ContextTokens
    """Tokens folded into one cached entry (4 for CSA, 128 for HCA)."""
    attended_entries: ContextTokens | None = None
    """Entries a query attends to, chosen by an indexer (CSA: the top 1,024); None: all."""


class ModelSpec(_Row):
    """One model architecture."""

    id: CatalogId
    """Stable lower-case kebab-case id, e.g. ``llama-3.1-405b``."""
    name: str = ""
    """Display name."""
    developer: str = ""
    """Organisation that released the model, e.g. ``Meta``, ``DeepSeek``."""
    total_params_b: ModelParams
    """Total parameters, billions."""
    active_params_b: ModelParams
    """Parameters active per token, billions (equals total for dense models)."""
    layers: ModelLayers
    """Transformer layers."""
    hidden_size: ModelWidth
    """Model (residual stream) width."""
    attention_heads: ModelWidth
    """Query heads."""
    kv_heads: ModelWidth
    """Key/value heads (GQA); equals attention heads for MHA."""
    head_dim: ModelWidth
    """Dimension per attention head."""
    kv_lora_rank: ModelWidth | None = None
    """MLA: compressed KV latent dimension (e.g. 512 for DeepSeek-V3); None without MLA."""
    qk_rope_head_dim: ModelWidth | None = None
    """MLA: decoupled RoPE key dimension cached per token (e.g. 64)."""
    experts: ModelWidth | None = None
    """MoE: routed experts per layer; None for dense models."""
    experts_per_token: ModelWidth | None = None
    """MoE: routed experts each token uses."""
    sliding_window_layers: Annotated[int, Field(ge=0, le=MODEL_LAYERS_MAX)] = 0
    """Layers whose attention only sees the last ``sliding_window_tokens`` tokens."""
    sliding_window_tokens: ContextTokens | None = None
    """Window of the sliding-window layers, tokens."""
    compressed_attention: tuple[CompressedAttention, ...] = ()
    """Layer groups with a compressed KV cache (DeepSeek-V4); the other layers keep every
    token."""
    compressed_window_tokens: Annotated[int, Field(ge=0, le=CONTEXT_TOKENS_MAX)] = 0
    """Most recent tokens each compressed layer also keeps uncompressed."""
    kv_shared_key_value: bool = False
    """One cached vector per KV head serves as key and value (DeepSeek-V4), so a token
    caches ``kv_heads · head_dim`` elements a layer, not twice that."""
    max_context_tokens: ContextTokens
    """Maximum context length, tokens."""
    training_tokens: PositiveFloat | None = None
    """Reported pre-training tokens."""
    training_accelerator_hours: PositiveFloat | None = None
    """Reported training accelerator-hours (e.g. H100-hours), where published."""
    source: str = Field(min_length=3)
    """Model card or paper the figures come from."""
    as_of: dt.date
    """Date the figures were checked."""
    notes: str = ""
    """Caveats."""

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if self.active_params_b > self.total_params_b:
            raise ValueError("active_params_b must not exceed total_params_b")
        if (self.experts is None) != (self.experts_per_token is None):
            raise ValueError("give both experts and experts_per_token, or neither")
        if (
            self.experts is not None
            and self.experts_per_token is not None
            and self.experts_per_token > self.experts
        ):
            raise ValueError("experts_per_token must not exceed experts")
        if (self.kv_lora_rank is None) != (self.qk_rope_head_dim is None):
            raise ValueError("give both kv_lora_rank and qk_rope_head_dim (MLA), or neither")
        compressed = sum(c.layers for c in self.compressed_attention)
        if self.sliding_window_layers + compressed > self.layers:
            raise ValueError(
                "sliding_window_layers plus the compressed_attention layers must not exceed layers"
            )
        if self.sliding_window_layers and self.sliding_window_tokens is None:
            raise ValueError("sliding_window_layers needs sliding_window_tokens")
        return self

    @property
    def is_moe(self) -> bool:
        return self.experts is not None

    @property
    def uses_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def expert_params_b(self) -> float:
        """Parameters of one routed expert summed over layers, billions.

        From ``total = shared + E·e`` and ``active = shared + k·e``:
        ``e = (total − active) / (E − k)``. Zero for dense models.
        """
        if self.experts is None or self.experts_per_token is None:
            return 0.0
        if self.experts == self.experts_per_token:
            return 0.0
        return (self.total_params_b - self.active_params_b) / (
            self.experts - self.experts_per_token
        )

    @property
    def shared_params_b(self) -> float:
        """Parameters every token reads (attention, embeddings, shared experts), billions."""
        if self.experts is None:
            return self.total_params_b
        return self.total_params_b - self.experts * self.expert_params_b


class OfferSpec(_Row):
    """Commercial facts of one hardware system (``offers.yaml``): whether it can be
    bought, its public cloud list prices and the network and storage it needs."""

    hardware: CatalogId
    """Hardware catalog id this row describes."""
    purchasable: bool = True
    """False for cloud-only systems (TPU, Trainium): they can be rented, never bought."""
    on_demand_usd_per_accelerator_hour: PositiveFloat | None = None
    """Public on-demand list price, USD per accelerator-hour; None when not published."""
    committed_1y_usd_per_accelerator_hour: PositiveFloat | None = None
    """List price with a 1-year commitment (paid whether used or not), USD per acc-hour."""
    committed_3y_usd_per_accelerator_hour: PositiveFloat | None = None
    """List price with a 3-year commitment (paid whether used or not), USD per acc-hour."""
    prices_are_estimates: bool = True
    """True where a price above is an analyst estimate, not a published list price."""
    network_usd_per_accelerator: NonNegativeFloat = 0.0
    """Scale-out network capex per accelerator (NICs, switches, optics), USD."""
    storage_usd_per_accelerator: NonNegativeFloat = 0.0
    """Storage capex per accelerator, USD."""
    network_kw_per_accelerator: NonNegativeFloat = 0.0
    """IT power of the scale-out network per accelerator, kW."""
    storage_kw_per_accelerator: NonNegativeFloat = 0.0
    """IT power of the storage per accelerator, kW."""
    source: str = Field(min_length=3)
    """Price list or estimate basis the figures come from."""
    as_of: dt.date
    """Date the figures were checked."""
    notes: str = ""
    """Caveats."""

    def committed_usd_per_accelerator_hour(self, term_years: int) -> float | None:
        """The list price of a ``term_years`` (1 or 3) commitment, or None."""
        price: float | None = getattr(self, f"committed_{term_years}y_usd_per_accelerator_hour")
        return price

    @property
    def network_storage_usd_per_accelerator(self) -> float:
        """Network and storage capex per accelerator, USD."""
        return self.network_usd_per_accelerator + self.storage_usd_per_accelerator

    @property
    def network_storage_kw_per_accelerator(self) -> float:
        """Network and storage IT power per accelerator, kW."""
        return self.network_kw_per_accelerator + self.storage_kw_per_accelerator


class DatacenterDefaults(_Row):
    """Datacenter cost defaults (``offers.yaml``: ``datacenter``), with a published range."""

    capex_usd_per_mw_it: PositiveFloat
    """Cost to build one MW of critical IT load, USD (the guide's average)."""
    capex_usd_per_mw_it_low: PositiveFloat
    """Lowest market in the guide, USD per MW of critical IT."""
    capex_usd_per_mw_it_high: PositiveFloat
    """Highest market in the guide, USD per MW of critical IT."""
    build_lead_time_years: PositiveInt
    """Years from the start of construction to power on."""
    facility_life_years: PositiveInt
    """Useful life of the building and power train, years (straight-line)."""
    fixed_om_usd_per_kw_year: NonNegativeFloat
    """Fixed operations and maintenance of built capacity, USD per kW of IT per year."""
    lease_usd_per_kw_month: PositiveFloat
    """Wholesale colocation rent, USD per contracted kW of IT per month."""
    lease_minimum_term_years: PositiveInt
    """Typical minimum term of a wholesale lease, years."""
    neocloud_wacc: Fraction
    """Cost of capital of a GPU cloud, per year (the neocloud-like tier of planner tco)."""
    source: str = Field(min_length=3)
    """Publications the figures come from."""
    as_of: dt.date
    """Date the figures were checked."""
    notes: str = ""
    """Caveats."""

    @model_validator(mode="after")
    def _range(self) -> DatacenterDefaults:
        if not self.capex_usd_per_mw_it_low <= self.capex_usd_per_mw_it:
            raise ValueError("capex_usd_per_mw_it is below capex_usd_per_mw_it_low")
        if not self.capex_usd_per_mw_it <= self.capex_usd_per_mw_it_high:
            raise ValueError("capex_usd_per_mw_it is above capex_usd_per_mw_it_high")
        return self
