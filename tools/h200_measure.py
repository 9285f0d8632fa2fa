#!/usr/bin/env python3
"""Measures training, LoRA and inference speed and memory on one GPU with PyTorch and writes the
results as rows in the schema of the validation set (tests/testdata/validation/README.md, the
same columns as calibration.csv), so `gpuplan validate` can predict every row.

Models are random-initialised from their published shapes (no downloads): Hugging Face
transformers LlamaForCausalLM built from a config (attn_implementation="sdpa"), or, when
transformers or peft cannot be used, a pure-PyTorch Llama (same shapes, same module names, SDPA
attention, its own LoRA and a manual decode loop with a static KV cache). Each row's `notes` say
which implementation produced it. Speed does not depend on the weights' values, only on their
shapes and dtypes; random weights are not zeros (KINDS.md: zeros run faster on Hopper).

Each case runs in its own try/except; the CSV is rewritten after every case, so a run cut short
keeps what it measured. A CUDA out-of-memory case becomes a `fits` = 0 row.

  python3 tools/h200_measure.py --out measurements.csv            # on the GPU machine
  python3 tools/h200_measure.py --device cpu --tiny --out /tmp/m.csv   # logic check, no GPU
"""

import argparse
import contextlib
import csv
import datetime
import gc
import math
import os
import platform
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F

# The exact header of the validation CSVs (calibration.csv, calibration_inference.csv).
COLUMNS = [
    "id", "source", "model", "params_b", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab",
    "seq_len", "task", "precision", "optimizer", "gpu", "gpus", "gpus_per_node", "nodes",
    "intra_node", "inter_node", "inter_node_gbps", "tp", "pp", "dp", "cp", "ep", "zero", "offload",
    "micro_batch", "global_batch", "grad_accum", "recompute", "flash_attention", "lora_rank",
    "quant_bits", "batch_size_inference", "output_tokens", "metric", "value", "memory_kind",
    "mfu_basis", "confidence", "notes",
]

T_START = time.monotonic()


def log(msg):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S")
    print(f"[{now} +{time.monotonic() - T_START:6.1f}s] {msg}", flush=True)


class Shape:
    """A decoder's published shape (data/models.csv has the same numbers for zoo models)."""

    def __init__(self, name, layers, hidden, heads, kv_heads, ffn, vocab, tied, max_pos):
        self.name, self.layers, self.hidden, self.heads = name, layers, hidden, heads
        self.kv_heads, self.ffn, self.vocab, self.tied, self.max_pos = kv_heads, ffn, vocab, tied, max_pos

    def params(self):
        """Total parameters (SwiGLU MLP, no biases, RMSNorm), counting tied embeddings once."""
        h, d = self.hidden, self.hidden // self.heads
        attn = h * h * 2 + 2 * h * self.kv_heads * d
        layer = attn + 3 * h * self.ffn + 2 * h
        emb = self.vocab * h * (1 if self.tied else 2)
        return self.layers * layer + emb + h


# Shapes from each model's config.json: meta-llama/Llama-3.2-1B (not in data/models.csv, so the
# rows carry the architecture columns and "tied embeddings" in notes), meta-llama/Llama-2-7b-hf
# and meta-llama/Meta-Llama-3-8B (both in data/models.csv under these names).
SHAPES = {
    "llama-3.2-1b": Shape("llama-3.2-1b", 16, 2048, 32, 8, 8192, 128256, True, 131072),
    "llama-2-7b": Shape("llama-2-7b", 32, 4096, 32, 32, 11008, 32000, False, 4096),
    "llama-3-8b": Shape("llama-3-8b", 32, 4096, 32, 8, 14336, 128256, False, 8192),
}


def tiny_shape(s):
    """The same family at toy size, for --tiny (CPU logic checks); named so no row passes for a
    real model."""
    return Shape("tiny-" + s.name, 2, 64, 4, 2 if s.kv_heads < s.heads else 4, 128, 512, s.tied, 4096)


# Driver name -> catalog name (gpuplan catalog gpus); anything else is OTHER (unsupported rows).
GPU_NAMES = [
    ("H200", "H200-141G-SXM"), ("H100 80GB HBM3", "H100-80G-SXM"), ("H100 PCIe", "H100-80G-PCIE"),
    ("H800", "H800-80G-SXM"), ("H20", "H20-96G"), ("A100-SXM4-80GB", "A100-80G-SXM"),
    ("A100-SXM4-40GB", "A100-40G-SXM"), ("A100 80GB PCIe", "A100-80G-PCIE"),
    ("A100-PCIE-40GB", "A100-40G-PCIE"), ("L40S", "L40S-48G"), ("L20", "L20-48G"), ("L4", "L4-24G"),
    ("A10", "A10-24G"), ("T4", "T4-16G"), ("A30", "A30-24G"),
]


def catalog_gpu(driver_name):
    for key, name in GPU_NAMES:
        if key in driver_name:
            return name
    return "OTHER"


# ----------------------------------------------------------------------------------------------
# Pure-PyTorch Llama (fallback when transformers/peft are missing or fail; the --tiny CPU path).
# Module names follow HF (q_proj, k_proj, ..., gate_proj) so LoRA targets mean the same thing.


class RMSNorm(nn.Module):
    def __init__(self, h, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def forward(self, x):
        # Computed in fp32 as HF LlamaRMSNorm does.
        y = x.float()
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * y.to(x.dtype)


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def attention(q, k, v, causal):
    """q [B, H, T, d], k/v [B, H, S, d]. SDPA where this torch has it (2.0+), else the math
    path (torch 1.x on the CPU check only)."""
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is not None:
        return sdpa(q, k, v, is_causal=causal)
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        t, s = q.shape[-2], k.shape[-2]
        mask = torch.ones(t, s, dtype=torch.bool, device=q.device).tril(diagonal=s - t)
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores.float(), dim=-1).to(q.dtype) @ v


class Block(nn.Module):
    def __init__(self, s):
        super().__init__()
        h, d = s.hidden, s.hidden // s.heads
        self.heads, self.kv_heads, self.d = s.heads, s.kv_heads, d
        self.input_layernorm = RMSNorm(h)
        self.q_proj = nn.Linear(h, s.heads * d, bias=False)
        self.k_proj = nn.Linear(h, s.kv_heads * d, bias=False)
        self.v_proj = nn.Linear(h, s.kv_heads * d, bias=False)
        self.o_proj = nn.Linear(s.heads * d, h, bias=False)
        self.post_attention_layernorm = RMSNorm(h)
        self.gate_proj = nn.Linear(h, s.ffn, bias=False)
        self.up_proj = nn.Linear(h, s.ffn, bias=False)
        self.down_proj = nn.Linear(s.ffn, h, bias=False)

    def forward(self, x, cos, sin, cache=None, pos=0):
        b, t, _ = x.shape
        y = self.input_layernorm(x)
        q = self.q_proj(y).view(b, t, self.heads, self.d).transpose(1, 2)
        k = self.k_proj(y).view(b, t, self.kv_heads, self.d).transpose(1, 2)
        v = self.v_proj(y).view(b, t, self.kv_heads, self.d).transpose(1, 2)
        cos, sin = cos.to(q.dtype), sin.to(q.dtype)  # bf16 under autocast even with fp32 weights
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if cache is not None:  # static cache: [B, kv, max_len, d] each, written in place
            kc, vc = cache
            kc[:, :, pos:pos + t] = k
            vc[:, :, pos:pos + t] = v
            k, v = kc[:, :, :pos + t], vc[:, :, :pos + t]
        rep = self.heads // self.kv_heads
        if rep > 1:  # GQA: repeat K/V per query head, as HF's sdpa path (repeat_kv) does
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        a = attention(q, k, v, causal=t > 1)
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, t, self.heads * self.d))
        y = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(y)) * self.up_proj(y))


class TorchLlama(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.shape = s
        self.embed_tokens = nn.Embedding(s.vocab, s.hidden)
        self.layers = nn.ModuleList([Block(s) for _ in range(s.layers)])
        self.norm = RMSNorm(s.hidden)
        self.lm_head = nn.Linear(s.hidden, s.vocab, bias=False)
        if s.tied:
            self.lm_head.weight = self.embed_tokens.weight
        self.gradient_checkpointing = False
        d = s.hidden // s.heads
        self.register_buffer("inv_freq", 1.0 / (500000.0 ** (torch.arange(0, d, 2).float() / d)),
                             persistent=False)
        for m in self.modules():  # HF's initializer_range
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)

    def rope(self, pos, t):
        p = torch.arange(pos, pos + t, device=self.inv_freq.device).float()
        f = torch.outer(p, self.inv_freq.float())
        e = torch.cat((f, f), dim=-1)
        return e.cos()[None, None], e.sin()[None, None]

    def forward(self, ids, caches=None, pos=0, last_only=False):
        x = self.embed_tokens(ids)
        cos, sin = self.rope(pos, ids.shape[1])
        for i, layer in enumerate(self.layers):
            if self.gradient_checkpointing and self.training:
                from torch.utils.checkpoint import checkpoint
                x = checkpoint(layer, x, cos, sin, use_reentrant=False)
            else:
                x = layer(x, cos, sin, None if caches is None else caches[i], pos)
        if last_only:
            x = x[:, -1:]
        return self.lm_head(self.norm(x))


class LoraLinear(nn.Module):
    """y = W x + B A x * alpha / r with W frozen; adapters in fp32 as peft keeps them by default
    (autocast_adapter_dtype) for a bf16 base."""

    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False, device=base.weight.device)
        self.lora_B = nn.Linear(r, base.out_features, bias=False, device=base.weight.device)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + (self.lora_B(self.lora_A(x.to(self.lora_A.weight.dtype))) * self.scale).to(x.dtype)


# ----------------------------------------------------------------------------------------------
# Model builders.


class Built:
    """A model plus how to run it, so the cases do not care which implementation built it."""

    def __init__(self, model, impl, hf):
        self.model, self.impl, self.hf = model, impl, hf

    def loss(self, ids):
        if self.hf:
            return self.model(input_ids=ids, labels=ids).loss
        logits = self.model(ids)
        v = logits.shape[-1]
        # fp32 logits for the loss, as HF's ForCausalLMLoss upcasts.
        return F.cross_entropy(logits[:, :-1].float().reshape(-1, v), ids[:, 1:].reshape(-1))

    def set_checkpointing(self, on):
        if self.hf:
            m = self.model
            if on:
                m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            else:
                m.gradient_checkpointing_disable()
        else:
            self.model.gradient_checkpointing = on


def hf_versions():
    try:
        import transformers
        return transformers.__version__
    except Exception:
        return None


def device_context(device):
    """Creates tensors directly on `device` (torch 2.0+); on older torch a no-op, and the caller
    moves the model afterwards."""
    d = torch.device(device)
    return d if hasattr(d, "__enter__") else contextlib.nullcontext()


@torch.no_grad()
def ensure_initialised(model):
    """Random N(0, 0.02) weights where a builder left a matrix empty (all zeros or non-finite):
    GEMMs on zeros run faster than on data (KINDS.md), and NaN would poison the decode."""
    redone = 0
    for m in model.modules():
        w = getattr(m, "weight", None)
        if isinstance(m, (nn.Linear, nn.Embedding)) and w is not None and w.dim() == 2:
            if not bool(torch.isfinite(w).all()) or float(w.abs().max()) == 0.0:
                w.normal_(0.0, 0.02)
                redone += 1
    if redone:
        log(f"initialised {redone} weight matrices the builder left empty")


def build_model(shape, dtype, device, prefer_hf):
    """Builds a random-initialised model directly on `device` (no host copy of the weights)."""
    if prefer_hf:
        try:
            import transformers
            from transformers import LlamaConfig, LlamaForCausalLM
            cfg = LlamaConfig(vocab_size=shape.vocab, hidden_size=shape.hidden,
                              intermediate_size=shape.ffn, num_hidden_layers=shape.layers,
                              num_attention_heads=shape.heads, num_key_value_heads=shape.kv_heads,
                              max_position_embeddings=shape.max_pos, tie_word_embeddings=shape.tied,
                              use_cache=True)
            with device_context(device):
                try:  # transformers 5: dtype=; 4.x: torch_dtype= (an unknown kwarg is a TypeError)
                    model = LlamaForCausalLM._from_config(cfg, dtype=dtype, attn_implementation="sdpa")
                except TypeError:
                    model = LlamaForCausalLM._from_config(cfg, torch_dtype=dtype, attn_implementation="sdpa")
            model.to(device=device, dtype=dtype)
            ensure_initialised(model)
            attn = getattr(model.config, "_attn_implementation", "?")
            impl = f"HF transformers {transformers.__version__} LlamaForCausalLM attn={attn} + torch {torch.__version__}"
            return Built(model, impl, True)
        except Exception as e:  # noqa: BLE001 - any failure falls back to the pure-torch model
            log(f"transformers model failed ({type(e).__name__}: {str(e)[:200]}); using the pure-torch Llama")
    old_dtype = torch.get_default_dtype()
    try:  # parameters born in the target dtype on the device: no fp32 copy of an 8B model
        torch.set_default_dtype(dtype)
    except (TypeError, RuntimeError):
        pass
    try:
        with device_context(device):
            model = TorchLlama(shape)
    finally:
        torch.set_default_dtype(old_dtype)
    model.to(device=device, dtype=dtype)
    sdpa = "sdpa" if hasattr(F, "scaled_dot_product_attention") else "math attention"
    # "pytorch" in impl= makes gpuplan validate model the engine as plain PyTorch eager.
    return Built(model, f"pytorch eager Llama in this script ({sdpa}) torch {torch.__version__}", False)


# ----------------------------------------------------------------------------------------------
# Measurement plumbing.


class Timer:
    """CUDA events on a GPU (device time between the marks), perf_counter on the CPU."""

    def __init__(self, device):
        self.cuda = device.startswith("cuda")

    def __enter__(self):
        if self.cuda:
            torch.cuda.synchronize()
            self.a = torch.cuda.Event(enable_timing=True)
            self.b = torch.cuda.Event(enable_timing=True)
            self.a.record()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.cuda:
            self.b.record()
            torch.cuda.synchronize()
            self.seconds = self.a.elapsed_time(self.b) / 1e3
        else:
            self.seconds = time.perf_counter() - self.t0
        self.wall = time.perf_counter() - self.t0
        return False


def reset_peak(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def peak_gib(device):
    if device.startswith("cuda"):
        return torch.cuda.max_memory_allocated() / 2**30
    return None  # no allocator statistics on the CPU


def free_memory(device):
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def is_oom(e):
    return isinstance(e, getattr(torch.cuda, "OutOfMemoryError", ())) or "out of memory" in str(e).lower()


class Writer:
    """Collects rows and rewrites the CSV (atomically) after every case."""

    def __init__(self, path, ctx):
        self.path, self.ctx, self.rows, self.n = path, ctx, [], 0
        self.errors = 0  # cases that failed other than by running out of memory

    def next_id(self):
        self.n += 1
        return f"{self.ctx['id_prefix']}-{self.n:03d}"

    def base(self, shape, task, **fields):
        r = {c: "" for c in COLUMNS}
        r.update(source=self.ctx["source"], model=shape.name, params_b=f"{shape.params() / 1e9:.3f}",
                 layers=shape.layers, hidden=shape.hidden, heads=shape.heads, kv_heads=shape.kv_heads,
                 ffn=shape.ffn, vocab=shape.vocab, task=task, gpu=self.ctx["gpu"], gpus=1,
                 gpus_per_node=1, nodes=1, inter_node="none", tp=1, pp=1, dp=1, cp=1, ep=1,
                 confidence="high")
        r.update(fields)
        return r

    def add(self, base, metrics, notes):
        """One row per (metric, value); ids share a stem, the second and later get .b, .c, ..."""
        stem = self.next_id()
        for i, (metric, value, extra) in enumerate(metrics):
            if value is None:
                continue
            r = dict(base)
            r["id"] = stem if i == 0 else f"{stem}.{chr(ord('a') + i)}"
            r["metric"] = metric
            r["value"] = f"{value:.4g}" if metric != "fits" else str(int(value))
            if metric == "peak_mem_gib":
                r["memory_kind"] = "allocated"
            r["notes"] = notes + (("; " + extra) if extra else "")
            self.rows.append(r)
        self.flush()

    def flush(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(self.rows)
        os.replace(tmp, self.path)


class Budget:
    """Wall-clock budget: the whole run and each section; a case starts only while both last."""

    def __init__(self, total_s):
        self.end = T_START + total_s
        self.section_end = self.end

    def section(self, name, seconds):
        self.section_end = min(self.end, time.monotonic() + seconds)
        log(f"== {name} (section budget {seconds:.0f} s, {self.end - time.monotonic():.0f} s left in total)")

    def ok(self, what):
        if time.monotonic() < self.section_end:
            return True
        log(f"skip {what}: out of time budget")
        return False


# ----------------------------------------------------------------------------------------------
# Cases.


def make_optimizer(params, lr, device):
    params = [p for p in params if p.requires_grad]
    if device.startswith("cuda"):
        try:  # fused AdamW (torch 2.x), as HF Trainer's default optim adamw_torch_fused
            return torch.optim.AdamW(params, lr=lr, fused=True), "torch.optim.AdamW fused"
        except (TypeError, RuntimeError):
            pass
    return torch.optim.AdamW(params, lr=lr), "torch.optim.AdamW"


def train_steps(built, opt, ids, amp, warmup, steps, device):
    """Runs warm-up then timed optimizer steps; returns (seconds, peak GiB)."""
    autocast = torch.autocast(device_type="cuda" if device.startswith("cuda") else "cpu",
                              dtype=torch.bfloat16, enabled=amp)
    for i in range(warmup + steps):
        if i == warmup:
            reset_peak(device)
            timer = Timer(device).__enter__()
        with autocast:
            loss = built.loss(ids)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if i == 0 and not math.isfinite(float(loss.detach())):
            log("warning: non-finite loss on the first step")
    timer.__exit__(None, None, None)
    return timer.seconds, peak_gib(device)


def run_full_finetune(args, w, budget, shape, hf):
    """Full fine-tune: pure bf16 (weights, grads, AdamW m/v in bf16) and AMP (fp32 weights and
    AdamW states, bf16 autocast); micro-batch 1/2/4; with and without gradient checkpointing."""
    variants = [("bf16", torch.bfloat16, False, "none",
                 "pure bf16 weights, grads and AdamW m/v (no fp32 master copy: 8 B/param of model+optimizer state)"),
                ("amp", torch.float32, True, "fp32",
                 "AMP: fp32 weights, grads and AdamW m/v (16 B/param), torch.autocast bf16 compute")]
    if args.only_precision:
        variants = [v for v in variants if v[0] == args.only_precision]
    for tag, dtype, amp, master, how in variants:
        if not budget.ok(f"full fine-tune {tag}"):
            return
        built = opt = None
        try:
            t = time.monotonic()
            built = build_model(shape, dtype, args.device, hf)
            built.model.train()
            if built.hf:
                built.model.config.use_cache = False
            opt, opt_name = make_optimizer(built.model.parameters(), 1e-5, args.device)
            log(f"built {shape.name} {tag} in {time.monotonic() - t:.1f} s: {built.impl}")
            for recompute in ("none", "full"):
                built.set_checkpointing(recompute == "full")
                for mb in args.train_micro_batches:
                    what = f"full fine-tune {shape.name} {tag} seq {args.train_seq} mb {mb} recompute {recompute}"
                    if not budget.ok(what):
                        break
                    base = w.base(shape, "finetune_full", seq_len=args.train_seq, precision="bf16",
                                  optimizer="adamw", zero=0, offload="none", micro_batch=mb,
                                  global_batch=mb, grad_accum=1, recompute=recompute,
                                  flash_attention="yes")
                    notes = (f"impl={built.impl}; {w.ctx['common']}; full fine-tune, {how}; "
                             f"master_weights={master}; {opt_name} lr 1e-5; {checkpoint_note(built, recompute)}"
                             f"random token ids, labels = inputs (causal-LM loss, fp32 logits); "
                             f"{args.warmup} warm-up + {args.steps} timed steps, {w.ctx['timing']}")
                    if shape.tied:
                        notes += "; tied embeddings"
                    ids = None
                    try:
                        ids = torch.randint(0, shape.vocab, (mb, args.train_seq), device=args.device)
                        secs, peak = train_steps(built, opt, ids, amp, args.warmup, args.steps, args.device)
                        tps = mb * args.train_seq * args.steps / secs
                        log(f"{what}: {tps:,.0f} tokens/s, step {secs / args.steps * 1e3:.1f} ms, "
                            f"peak {peak if peak is None else round(peak, 2)} GiB")
                        w.add(base, [("tokens_per_s_per_gpu", tps, ""), ("peak_mem_gib", peak, "")], notes)
                    except Exception as e:  # noqa: BLE001
                        handle_case_error(w, base, notes, what, e, args.device)
                        opt.zero_grad(set_to_none=True)
                    finally:
                        del ids
                        free_memory(args.device)
        except Exception as e:  # noqa: BLE001
            w.errors += 1
            log(f"full fine-tune {tag} failed: {type(e).__name__}: {e}")
            traceback.print_exc()
        finally:
            built = opt = None
            free_memory(args.device)


def checkpoint_note(built, recompute):
    if recompute != "full":
        return ""
    if built.hf:
        return "recompute full = HF gradient checkpointing of every decoder layer (use_reentrant=False); "
    return "recompute full = torch.utils.checkpoint of every decoder layer (use_reentrant=False); "


def handle_case_error(w, base, notes, what, e, device):
    if is_oom(e):
        log(f"{what}: out of memory -> fits = 0")
        w.add(base, [("fits", 0, "CUDA out of memory (torch max_memory_allocated capacity)")], notes)
    else:
        w.errors += 1
        log(f"{what} failed: {type(e).__name__}: {str(e)[:300]}")
        traceback.print_exc()


def run_lora(args, w, budget, shape, hf):
    """LoRA r=16 on q,k,v,o of a bf16 model; bf16 autocast; AdamW over the adapters only."""
    built = opt = None
    targets = ["q_proj", "k_proj", "v_proj", "o_proj"]
    try:
        t = time.monotonic()
        built = build_model(shape, torch.bfloat16, args.device, hf)
        lora_impl = None
        if built.hf:
            try:
                import peft
                cfg = peft.LoraConfig(r=args.lora_rank, lora_alpha=2 * args.lora_rank, lora_dropout=0.0,
                                      target_modules=targets, bias="none", task_type="CAUSAL_LM")
                built.model = peft.get_peft_model(built.model, cfg)
                lora_impl = f"peft {peft.__version__}"
            except Exception as e:  # noqa: BLE001
                log(f"peft failed ({type(e).__name__}: {str(e)[:200]}); using the pure-torch LoRA on the HF model")
        if lora_impl is None:
            layers = built.model.model.layers if built.hf else built.model.layers
            for p in built.model.parameters():
                p.requires_grad_(False)
            for block in layers:
                holder = block.self_attn if built.hf else block
                for name in targets:
                    setattr(holder, name, LoraLinear(getattr(holder, name), args.lora_rank, 2 * args.lora_rank))
            lora_impl = "own LoRA (fp32 adapters)"
        built.model.train()
        if built.hf:
            built.model.config.use_cache = False
        trainable = sum(p.numel() for p in built.model.parameters() if p.requires_grad)
        opt, opt_name = make_optimizer(built.model.parameters(), 1e-4, args.device)
        log(f"built {shape.name} LoRA in {time.monotonic() - t:.1f} s: {built.impl}, {lora_impl}, "
            f"{trainable / 1e6:.1f} M trainable")
        cases = [(s, mb, "none") for s in args.lora_seqs for mb in args.lora_micro_batches]
        cases.append((max(args.lora_seqs), max(args.lora_micro_batches), "full"))
        for seq, mb, recompute in cases:
            what = f"LoRA {shape.name} seq {seq} mb {mb} recompute {recompute}"
            if not budget.ok(what):
                break
            built.set_checkpointing(recompute == "full")
            base = w.base(shape, "finetune_lora", seq_len=seq, precision="bf16", optimizer="adamw",
                          zero=0, offload="none", micro_batch=mb, global_batch=mb, grad_accum=1,
                          recompute=recompute, flash_attention="yes", lora_rank=args.lora_rank)
            notes = (f"impl={built.impl}, {lora_impl}; {w.ctx['common']}; LoRA r={args.lora_rank} "
                     f"alpha={2 * args.lora_rank} on q_proj,k_proj,v_proj,o_proj only (not the MLP; "
                     f"embedding and lm_head frozen); base weights bf16 frozen, adapters fp32, "
                     f"torch.autocast bf16; {opt_name} over {trainable / 1e6:.1f} M adapter params; "
                     f"{checkpoint_note(built, recompute)}random token ids, labels = inputs; "
                     f"{args.warmup} warm-up + {args.steps} timed steps, {w.ctx['timing']}")
            ids = None
            try:
                ids = torch.randint(0, shape.vocab, (mb, seq), device=args.device)
                secs, peak = train_steps(built, opt, ids, True, args.warmup, args.steps, args.device)
                tps = mb * seq * args.steps / secs
                log(f"{what}: {tps:,.0f} tokens/s, step {secs / args.steps * 1e3:.1f} ms, "
                    f"peak {peak if peak is None else round(peak, 2)} GiB")
                w.add(base, [("tokens_per_s_per_gpu", tps, ""), ("peak_mem_gib", peak, "")], notes)
            except Exception as e:  # noqa: BLE001
                handle_case_error(w, base, notes, what, e, args.device)
                opt.zero_grad(set_to_none=True)
            finally:
                del ids
                free_memory(args.device)
    except Exception as e:  # noqa: BLE001
        w.errors += 1
        log(f"LoRA failed: {type(e).__name__}: {e}")
        traceback.print_exc()
    finally:
        built = opt = None
        free_memory(args.device)


def hf_generate(model, ids, new_tokens):
    out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens,
                         min_new_tokens=new_tokens, do_sample=False, num_beams=1, pad_token_id=0)
    return out.shape[1] - ids.shape[1]


@torch.no_grad()
def torch_generate(model, ids, new_tokens, caches_holder):
    """Greedy decode with a static KV cache preallocated for prompt + new tokens."""
    s = model.shape
    b, p = ids.shape
    d = s.hidden // s.heads
    dtype = model.embed_tokens.weight.dtype
    caches = [(torch.empty(b, s.kv_heads, p + new_tokens, d, device=ids.device, dtype=dtype),
               torch.empty(b, s.kv_heads, p + new_tokens, d, device=ids.device, dtype=dtype))
              for _ in range(s.layers)]
    caches_holder.append(caches)
    tok = model(ids, caches, 0, last_only=True)[:, -1].argmax(-1, keepdim=True)
    n = 1
    for i in range(new_tokens - 1):
        tok = model(tok, caches, p + i, last_only=True)[:, -1].argmax(-1, keepdim=True)
        n += 1
    caches_holder.clear()
    return n


def run_inference(args, w, budget, shape, hf):
    built = None
    try:
        t = time.monotonic()
        built = build_model(shape, torch.bfloat16, args.device, hf)
        built.model.eval()
        log(f"built {shape.name} inference in {time.monotonic() - t:.1f} s: {built.impl}")
        holder = []

        def gen(ids, n):
            with torch.no_grad():
                return hf_generate(built.model, ids, n) if built.hf else torch_generate(built.model, ids, n, holder)

        if built.hf:
            how = ("HF generate greedy (do_sample=False, min_new_tokens = max_new_tokens), default dynamic KV "
                   "cache, eager (no torch.compile)")
        else:
            how = "manual greedy decode loop (pytorch eager) with a static preallocated KV cache"
        for batch, prompt, out in args.infer_cases:
            what = f"inference {shape.name} batch {batch} prompt {prompt} output {out}"
            if not budget.ok(what):
                break
            base = w.base(shape, "inference_offline", seq_len=prompt, precision="bf16",
                          flash_attention="yes", batch_size_inference=batch, output_tokens=out)
            notes = (f"impl={built.impl}; {w.ctx['common']}; {how}; random prompt token ids, "
                     f"no padding; warm-up generate of 2 tokens first; ttft = a separate generate of 1 "
                     f"token (prefill + first token); tokens/s = batch x output tokens / wall time of the "
                     f"whole generate incl. prefill (torch.cuda.synchronize around it); "
                     f"tpot = (generate time - ttft) / (output - 1)")
            ids = None
            try:
                ids = torch.randint(0, shape.vocab, (batch, prompt), device=args.device)
                gen(ids, 2)  # warm-up: kernels, allocator, cuBLAS heuristics
                with Timer(args.device) as t1:
                    gen(ids, 1)
                reset_peak(args.device)
                with Timer(args.device) as tg:
                    produced = gen(ids, out)
                peak = peak_gib(args.device)
                if produced != out:
                    raise RuntimeError(f"generated {produced} tokens, wanted {out}")
                total = tg.wall
                ttft_ms = t1.wall * 1e3
                # The decode part of the timed generate; None (no row) when the separate ttft run
                # took longer than the whole generate (toy sizes only).
                tpot_ms = (total - t1.wall) / max(1, out - 1) * 1e3 if out > 1 and total > t1.wall else None
                tps = batch * out / total
                log(f"{what}: {tps:,.1f} tokens/s, ttft {ttft_ms:.1f} ms, "
                    f"tpot {'-' if tpot_ms is None else f'{tpot_ms:.2f}'} ms, "
                    f"peak {peak if peak is None else round(peak, 2)} GiB, e2e {total:.2f} s")
                w.add(base, [("tokens_per_s_per_gpu", tps, f"e2e_s={total:.3f}"), ("ttft_ms", ttft_ms, ""),
                             ("tpot_ms", tpot_ms, ""), ("peak_mem_gib", peak, "")], notes)
            except Exception as e:  # noqa: BLE001
                holder.clear()
                handle_case_error(w, base, notes, what, e, args.device)
            finally:
                del ids
                free_memory(args.device)
    except Exception as e:  # noqa: BLE001
        w.errors += 1
        log(f"inference failed: {type(e).__name__}: {e}")
        traceback.print_exc()
    finally:
        built = None
        free_memory(args.device)


# ----------------------------------------------------------------------------------------------


def parse_cases(text):
    """'1x128x256,8x512x256' -> [(batch, prompt, output), ...]"""
    cases = []
    for part in text.split(","):
        b, p, o = (int(x) for x in part.lower().split("x"))
        cases.append((b, p, o))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="CSV to write (rewritten after every case)")
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    ap.add_argument("--tiny", action="store_true", help="toy shapes and few steps (logic check)")
    ap.add_argument("--dry-run", action="store_true", help="= --device cpu --tiny")
    ap.add_argument("--torch-only", action="store_true", help="skip transformers/peft: pure-torch models")
    ap.add_argument("--budget-s", type=float, default=230, help="wall-clock budget from process start")
    ap.add_argument("--sections", default="train,lora,infer")
    ap.add_argument("--gpu", help="catalog GPU name for the rows (default: from the driver's name)")
    ap.add_argument("--only-precision", choices=["bf16", "amp"])
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--train-seq", type=int, default=2048)
    ap.add_argument("--train-micro-batches", default="1,2,4")
    ap.add_argument("--lora-seqs", default="1024,2048")
    ap.add_argument("--lora-micro-batches", default="1,2,4")
    ap.add_argument("--lora-rank", type=int, default=16)
    ap.add_argument("--infer-cases", default="1x128x256,1x1024x256,8x512x256,32x1024x128,32x128x256",
                    help="batch x prompt x output, comma-separated")
    args = ap.parse_args()
    if args.dry_run:
        args.device, args.tiny = "cpu", True
    args.train_micro_batches = [int(x) for x in args.train_micro_batches.split(",")]
    args.lora_seqs = [int(x) for x in args.lora_seqs.split(",")]
    args.lora_micro_batches = [int(x) for x in args.lora_micro_batches.split(",")]
    args.infer_cases = parse_cases(args.infer_cases)
    if args.tiny:
        args.warmup, args.steps = 1, 1
        args.train_seq = min(args.train_seq, 64)
        args.lora_seqs = [min(s, 64) for s in args.lora_seqs]
        args.infer_cases = [(b, min(p, 16), min(o, 4)) for b, p, o in args.infer_cases]
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        log("CUDA is not available; nothing to measure (use --device cpu --tiny for a logic check)")
        return 2

    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if args.device.startswith("cuda"):
        driver_name = torch.cuda.get_device_name(0)
        props = torch.cuda.get_device_properties(0)
        gpu = args.gpu or catalog_gpu(driver_name)
        short = driver_name.replace("NVIDIA ", "")
        hw = f"{driver_name}, {props.total_memory / 2**30:.1f} GiB, {props.multi_processor_count} SMs"
    else:
        driver_name, gpu, short, hw = "cpu", args.gpu or "OTHER", "CPU", platform.processor() or "cpu"
    cuda_v = getattr(torch.version, "cuda", None)
    common = (f"random-initialised weights from the published config (no checkpoint); {hw}; "
              f"torch {torch.__version__} CUDA {cuda_v}; Python {platform.python_version()}")
    if args.tiny:
        common = "DRY RUN on toy shapes, not a measurement; " + common
    ctx = {"gpu": gpu, "common": common,
           "timing": "time between CUDA events" if args.device.startswith("cuda") else "wall time",
           "source": f"gpuplan device run on {short} (this repo, {date})" + (" [dry run]" if args.tiny else ""),
           "id_prefix": ("DRY" if args.tiny else "DEV") + "-" + short.split()[0].replace("-", "").upper()}
    w = Writer(args.out, ctx)
    w.flush()  # header now, so even a crash leaves a readable file
    log(f"device {hw}; rows as gpu={gpu}; torch {torch.__version__}; transformers {hf_versions()}; "
        f"budget {args.budget_s:.0f} s")

    budget = Budget(args.budget_s)
    pick = (lambda s: tiny_shape(s)) if args.tiny else (lambda s: s)
    sections = args.sections.split(",")
    # Section shares of the budget: training (two model builds, 12 cases) gets the most; a slow
    # section cannot starve the ones after it beyond its share.
    share = {"train": 0.35, "lora": 0.25, "infer": 0.40}
    for name in sections:
        left = budget.end - time.monotonic()
        weight = share.get(name, 0.3) / sum(share.get(s, 0.3) for s in sections[sections.index(name):])
        budget.section(name, left * weight)
        runner = {"train": (run_full_finetune, "llama-3.2-1b"), "lora": (run_lora, "llama-2-7b"),
                  "infer": (run_inference, "llama-3-8b")}.get(name)
        if runner is None:
            log(f"unknown section {name!r}")
            continue
        fn, model = runner
        rows, errors = len(w.rows), w.errors
        fn(args, w, budget, pick(SHAPES[model]), not args.torch_only)
        if len(w.rows) == rows and w.errors > errors and not args.torch_only:
            # Every case failed inside transformers/peft (an API change, say): the same cases on
            # the pure-torch model still give rows, with impl= saying which.
            log(f"{name}: every case failed with transformers; again with the pure-torch model")
            fn(args, w, budget, pick(SHAPES[model]), False)
    log(f"done: {len(w.rows)} rows in {args.out}")
    return 0 if w.rows else 1


if __name__ == "__main__":
    sys.exit(main())
