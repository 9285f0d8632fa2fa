"""Host launch cost on a GPU machine: how long eager PyTorch takes per kernel and per decoder
layer of HF generate, to tell a slow host/VM launch path from GPU time.
Usage: python3 tools/launch_probe.py > launch.txt   (needs CUDA, torch, transformers)"""
import time

import torch


def per_call_us(fn, n):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


def main():
    x = torch.ones(16, device="cuda")
    print(f"torch.add on 16 floats, eager: {per_call_us(lambda: x.add_(1), 5000):.2f} us/launch")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(100):
            x.add_(1)
    print(f"same in a CUDA graph of 100: {per_call_us(g.replay, 200) / 100:.2f} us/kernel")
    print(f"torch.cuda.synchronize alone: {per_call_us(torch.cuda.synchronize, 2000):.2f} us")
    try:
        from transformers import LlamaConfig, LlamaForCausalLM
    except Exception as e:  # noqa: BLE001
        print("transformers unavailable:", e)
        return
    tpot = {}
    for layers in (1, 8):
        cfg = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
                          num_key_value_heads=8, num_hidden_layers=layers, vocab_size=128256)
        m = LlamaForCausalLM(cfg).to("cuda", torch.bfloat16).eval()
        ids = torch.randint(0, 128256, (1, 128), device="cuda")
        with torch.no_grad():
            m.generate(ids, max_new_tokens=8, min_new_tokens=8, do_sample=False)
            torch.cuda.synchronize()
            res = {}
            for n in (16, 80):
                t = time.perf_counter()
                m.generate(ids, max_new_tokens=n, min_new_tokens=n, do_sample=False)
                torch.cuda.synchronize()
                res[n] = time.perf_counter() - t
        tpot[layers] = (res[80] - res[16]) / 64 * 1e3
        print(f"HF generate llama-3-8b shape, {layers} layer(s), batch 1: {tpot[layers]:.2f} ms/token")
        del m
        torch.cuda.empty_cache()
    print(f"per decoder layer: {(tpot[8] - tpot[1]) / 7 * 1e3:.0f} us; fixed per token: "
          f"{tpot[1] - (tpot[8] - tpot[1]) / 7:.2f} ms")
    import transformers
    print("torch", torch.__version__, "transformers", transformers.__version__)


if __name__ == "__main__":
    main()
