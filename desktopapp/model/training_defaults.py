"""Defaults of a training run that depend on the run itself (issue 21): the global batch by
model size and fleet, and the GPU count assumed when none is given.

Published practice (tokens per optimizer step):

* GPT-3 (Brown et al. 2020, arXiv 2005.14165, Table 2.1): 0.5M tokens up to 760M parameters,
  1M at 1.3B-2.7B, 2M at 6.7B-13B, 3.2M at 175B;
* Llama 2 (Touvron et al. 2023, arXiv 2307.09288, §2.2): 4M at every size (7B-70B);
* Llama 3 405B (Dubey et al. 2024, arXiv 2407.21783, §3.4.1): 4M, then 8M, then 16M tokens
  per step on up to 16,384 H100 GPUs;
* DeepSeek-V3 (2024, arXiv 2412.19437, §4.2): 15,360 sequences of 4,096 tokens ≈ 63M.

The size rule: 0.5M tokens up to 1B parameters (GPT-3's small models), 4M above (Llama 2,
and Llama 3 405B's first stage). The default is the size rule's figure, raised when the fleet
would leave each GPU less than :data:`TOKENS_PER_GPU` tokens per step (Llama 3 405B: 16M tokens
on 16,384 GPUs = 1,024 per GPU), and capped at :data:`MAX_DEFAULT_BATCH_TOKENS` (the largest
batch of a dense run published, Llama 3 405B). A fleet that needs more gets the cap and a
warning. A user value always wins.
"""

from __future__ import annotations

import math

from desktopapp.model.validation import InputError, require_int

# The software stack a run uses (model.perf_training models each; here so the training inputs
# can check it without importing the performance model).
SOFTWARE_STACKS = ("typical", "megatron", "fsdp")
DEFAULT_STACK = "typical"
STACK_LABELS = {  # what the Workload tab's choice shows
    "typical": "Typical (stack unknown)",
    "megatron": "Megatron-LM / NeMo",
    "fsdp": "PyTorch FSDP (eager)",
}

# Most experts a token may be routed to (and experts per MoE layer): far above published models
# (DeepSeek-V3: 256 routed experts, top-8, arXiv 2412.19437; Switch-C: 2,048, Fedus et al. 2021).
MAX_EXPERTS = 4096
MOE_TOP_K = 2  # experts per token when none is given
DEFAULT_MOE_EXPERTS = 8  # experts per layer when none is given (serving; Mixtral 8x7B)
MOE_TOP_K_SOURCE = "top-2 routing (GShard, Lepikhin et al. 2020; Mixtral 8x7B)"
# Highest GPU power cap accepted, W: well above any board's (B300 and MI355X: 1,400 W).
MAX_POWER_CAP_W = 5000.0
# Lowest power cap accepted, as a share of the board's TDP: drivers refuse lower limits (an H100
# SXM allows 200-700 W: NVIDIA DGX B200 User Guide, 'Managing Power Capping', Redfish
# PowerLimitWatts AllowableMin 200 / AllowableMax 700), and the cube-root clock rule of the cap
# has no support that far down.
MIN_POWER_CAP_SHARE = 0.25


def moe_count(name: str, value: object, active_params: float | None) -> int:
    """Experts per layer or per token (``name``): a whole number from 1 to MAX_EXPERTS, and
    only for a mixture of experts (``active_params`` given): a dense model routes nothing."""
    count = require_int(name, value, minimum=1, maximum=MAX_EXPERTS)
    if active_params is None:
        raise InputError(name, "applies to a mixture of experts: give the active parameters too")
    return count


MIB_TOKENS = 2**20
# (largest parameter count, tokens per step)
SIZE_RULE: tuple[tuple[float, float], ...] = (
    (1e9, 0.5 * MIB_TOKENS),  # GPT-3 125M-760M
    (math.inf, 4 * MIB_TOKENS),  # Llama 2 7B-70B, Llama 3 405B at the start
)
TOKENS_PER_GPU = 1024
MAX_DEFAULT_BATCH_TOKENS = 16 * MIB_TOKENS
GLOBAL_BATCH_RULE_SOURCE = (
    "published practice by model size (GPT-3, Brown et al. 2020, Table 2.1: 0.5M-3.2M; "
    "Llama 2, Touvron et al. 2023, §2.2: 4M), raised to 1,024 tokens per GPU for large fleets "
    "(Llama 3 405B, Dubey et al. 2024, §3.4.1: 16M tokens on 16,384 GPUs), at most 16M"
)


def size_batch_tokens(params: float) -> float:
    """Tokens per step that published runs of this size used."""
    for limit, tokens in SIZE_RULE:
        if params <= limit:
            return tokens
    return SIZE_RULE[-1][1]


def fleet_batch_tokens(gpus: int) -> float:
    """Tokens per step a fleet of ``gpus`` needs to keep each GPU busy (a power of two)."""
    need = max(1, int(gpus)) * TOKENS_PER_GPU
    return float(2 ** math.ceil(math.log2(need)))


def default_global_batch_tokens(params: float, gpus: int) -> float:
    """The default global batch (tokens per optimizer step) for ``params`` on ``gpus``."""
    return min(max(size_batch_tokens(params), fleet_batch_tokens(gpus)), MAX_DEFAULT_BATCH_TOKENS)


def fleet_outgrows_batch(params: float, gpus: int) -> str:
    """A warning when the fleet needs a larger batch than published runs used ("" if not)."""
    if fleet_batch_tokens(gpus) <= MAX_DEFAULT_BATCH_TOKENS:
        return ""
    used = default_global_batch_tokens(params, gpus)
    return (
        f"{gpus:,} GPUs outgrow the default global batch of {used / MIB_TOKENS:.0f}M tokens (the "
        "largest published for a dense run): the pipeline bubble and small micro-batches cost "
        "time; give --global-batch-tokens if your run uses a larger batch"
    )
