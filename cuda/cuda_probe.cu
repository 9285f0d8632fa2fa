// The CUDA probe plugin behind `gpuplan probe` (see src/agent/cuda_probe_abi.h): per GPU, dense
// GEMM throughput with cuBLASLt in FP32, TF32, BF16 and FP16, device memory copy bandwidth and
// pinned host<->device bandwidth; across GPUs, peer copies and NCCL all-reduce bus bandwidth.
// Every failure is reported through the sink with its reason; nothing here aborts the process.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#ifdef GPUPLAN_HAVE_NCCL
#include <nccl.h>
#endif

#include "agent/cuda_probe_abi.h"

namespace {

struct Probe {
  const GpuplanCudaProbeOptions* o;
  const GpuplanCudaProbeSink* sink;

  void Metric(int gpu, const char* id, double value, const char* how) const {
    sink->metric(sink->ctx, gpu, id, value, how);
  }
  void Skip(int gpu, const char* id, const char* fmt, ...) const {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sink->skipped(sink->ctx, gpu, id, buf);
  }
};

// A device allocation freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  cudaError_t Alloc(size_t bytes) { return cudaMalloc(&p, bytes); }
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
};

struct HostBuffer {
  void* p = nullptr;
  cudaError_t Alloc(size_t bytes) { return cudaMallocHost(&p, bytes); }
  ~HostBuffer() {
    if (p) cudaFreeHost(p);
  }
};

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  // Seconds between the two recorded events (after synchronising on stop).
  double Seconds() {
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    return ms / 1e3;
  }
};

// Small pseudo-random values in [-0.5, 0.5): GEMMs on zeros can take shortcuts in power and
// clock behaviour, and huge values overflow FP16.
template <typename T>
__device__ T FromFloat(float v);
template <>
__device__ float FromFloat<float>(float v) { return v; }
template <>
__device__ __half FromFloat<__half>(float v) { return __float2half(v); }
template <>
__device__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

template <typename T>
__global__ void Fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned h = static_cast<unsigned>(i) * 2654435761u;
    p[i] = FromFloat<T>(static_cast<float>(h % 1000u) / 1000.0f - 0.5f);
  }
}

// STREAM-style copy with 16-byte accesses: one read and one write per element.
__global__ void Copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
}

// Runs `step` (enqueue one unit of work on `stream`) repeatedly for about seconds_per_test after
// a warm-up; returns seconds per step, or a negative value on error.
template <typename Step>
double TimeSteps(const Probe& pr, cudaStream_t stream, Step step) {
  Events ev;
  // Warm-up: clocks ramp up, cuBLAS loads kernels, caches fill.
  for (int i = 0; i < 2; ++i) {
    if (!step()) return -1;
  }
  cudaEventRecord(ev.start, stream);
  if (!step()) return -1;
  cudaEventRecord(ev.stop, stream);
  const double one = ev.Seconds();
  if (cudaGetLastError() != cudaSuccess || one <= 0) return -1;
  int iters = static_cast<int>(pr.o->seconds_per_test / one);
  if (iters < 3) iters = 3;
  if (iters > 100000) iters = 100000;
  cudaEventRecord(ev.start, stream);
  for (int i = 0; i < iters; ++i) {
    if (!step()) return -1;
  }
  cudaEventRecord(ev.stop, stream);
  const double total = ev.Seconds();
  if (cudaGetLastError() != cudaSuccess) return -1;
  return total / iters;
}

struct GemmKind {
  const char* id;
  cudaDataType_t type;
  cublasComputeType_t compute;
  size_t elem;
};

void GemmTest(const Probe& pr, int gpu, cublasLtHandle_t lt, cudaStream_t stream,
              const GemmKind& k, void* workspace, size_t workspace_bytes) {
  const int n = pr.o->gemm_size;
  const size_t elems = static_cast<size_t>(n) * n;
  DeviceBuffer a, b, c;
  cudaError_t e;
  if ((e = a.Alloc(elems * k.elem)) != cudaSuccess || (e = b.Alloc(elems * k.elem)) != cudaSuccess ||
      (e = c.Alloc(elems * k.elem)) != cudaSuccess) {
    pr.Skip(gpu, k.id, "cannot allocate 3 x %d^2 matrices: %s", n, cudaGetErrorString(e));
    return;
  }
  if (k.elem == 4) {
    Fill<<<1024, 256, 0, stream>>>(static_cast<float*>(a.p), elems);
    Fill<<<1024, 256, 0, stream>>>(static_cast<float*>(b.p), elems);
  } else if (k.type == CUDA_R_16F) {
    Fill<<<1024, 256, 0, stream>>>(static_cast<__half*>(a.p), elems);
    Fill<<<1024, 256, 0, stream>>>(static_cast<__half*>(b.p), elems);
  } else {
    Fill<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(a.p), elems);
    Fill<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(b.p), elems);
  }
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  cublasStatus_t s = cublasLtMatmulDescCreate(&desc, k.compute, CUDA_R_32F);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&la, k.type, n, n, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&lb, k.type, n, n, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&lc, k.type, n, n, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulPreferenceCreate(&pref);
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &workspace_bytes, sizeof workspace_bytes);
  }
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &heur, &found);
  }
  if (s != CUBLAS_STATUS_SUCCESS || found == 0) {
    pr.Skip(gpu, k.id, "cuBLASLt has no algorithm for this GEMM on this GPU (status %d)",
            static_cast<int>(s));
  } else {
    const float alpha = 1.0f, beta = 0.0f;
    bool ok = true;
    const double t = TimeSteps(pr, stream, [&] {
      ok = cublasLtMatmul(lt, desc, &alpha, a.p, la, b.p, lb, &beta, c.p, lc, c.p, lc,
                          &heur.algo, workspace, workspace_bytes, stream) ==
           CUBLAS_STATUS_SUCCESS;
      return ok;
    });
    if (t > 0) {
      char how[128];
      snprintf(how, sizeof how, "cuBLASLt %dx%dx%d, FP32 accumulate", n, n, n);
      pr.Metric(gpu, k.id, 2.0 * n * static_cast<double>(n) * n / t / 1e12, how);
    } else {
      pr.Skip(gpu, k.id, "cublasLtMatmul failed");
    }
  }
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (lc) cublasLtMatrixLayoutDestroy(lc);
  if (lb) cublasLtMatrixLayoutDestroy(lb);
  if (la) cublasLtMatrixLayoutDestroy(la);
  if (desc) cublasLtMatmulDescDestroy(desc);
}

void MemoryTest(const Probe& pr, int gpu, cudaStream_t stream) {
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  size_t bytes = static_cast<size_t>(pr.o->memory_test_gib * (1u << 30));
  if (bytes * 2 > free_bytes / 2) bytes = free_bytes / 4;
  bytes = bytes / 16 * 16;
  DeviceBuffer in, out;
  cudaError_t e;
  if ((e = in.Alloc(bytes)) != cudaSuccess || (e = out.Alloc(bytes)) != cudaSuccess) {
    pr.Skip(gpu, "memory_bandwidth_gbs", "cannot allocate 2 x %zu MiB: %s", bytes >> 20,
            cudaGetErrorString(e));
    return;
  }
  const size_t n = bytes / 16;
  Fill<<<1024, 256, 0, stream>>>(static_cast<float*>(in.p), bytes / 4);
  const double t = TimeSteps(pr, stream, [&] {
    Copy<<<4096, 256, 0, stream>>>(static_cast<const float4*>(in.p), static_cast<float4*>(out.p),
                                   n);
    return true;
  });
  if (t > 0) {
    char how[128];
    snprintf(how, sizeof how, "copy kernel, 2 x %zu MiB, read + write counted", bytes >> 20);
    pr.Metric(gpu, "memory_bandwidth_gbs", 2.0 * static_cast<double>(bytes) / t / 1e9, how);
  } else {
    pr.Skip(gpu, "memory_bandwidth_gbs", "copy kernel failed: %s",
            cudaGetErrorString(cudaGetLastError()));
  }
}

void TransferTest(const Probe& pr, int gpu, cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(pr.o->transfer_mib * (1u << 20));
  HostBuffer host;
  DeviceBuffer dev;
  cudaError_t e;
  if ((e = host.Alloc(bytes)) != cudaSuccess || (e = dev.Alloc(bytes)) != cudaSuccess) {
    pr.Skip(gpu, "h2d_gbs", "cannot allocate %zu MiB pinned + device: %s", bytes >> 20,
            cudaGetErrorString(e));
    pr.Skip(gpu, "d2h_gbs", "cannot allocate %zu MiB pinned + device: %s", bytes >> 20,
            cudaGetErrorString(e));
    return;
  }
  std::memset(host.p, 1, bytes);
  struct Dir {
    const char* id;
    cudaMemcpyKind kind;
  };
  for (Dir d : {Dir{"h2d_gbs", cudaMemcpyHostToDevice}, Dir{"d2h_gbs", cudaMemcpyDeviceToHost}}) {
    void* dst = d.kind == cudaMemcpyHostToDevice ? dev.p : host.p;
    void* src = d.kind == cudaMemcpyHostToDevice ? host.p : dev.p;
    const double t = TimeSteps(pr, stream, [&] {
      return cudaMemcpyAsync(dst, src, bytes, d.kind, stream) == cudaSuccess;
    });
    if (t > 0) {
      char how[96];
      snprintf(how, sizeof how, "cudaMemcpyAsync %zu MiB pinned", bytes >> 20);
      pr.Metric(gpu, d.id, static_cast<double>(bytes) / t / 1e9, how);
    } else {
      pr.Skip(gpu, d.id, "cudaMemcpyAsync failed");
    }
  }
}

void PeerTest(const Probe& pr, int count) {
  const size_t bytes = static_cast<size_t>(pr.o->transfer_mib * (1u << 20));
  for (int j = 1; j < count; ++j) {
    int can01 = 0;
    cudaDeviceCanAccessPeer(&can01, 0, j);
    cudaSetDevice(0);
    if (can01) cudaDeviceEnablePeerAccess(j, 0);
    cudaGetLastError();  // "already enabled" is fine
    DeviceBuffer src;
    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    cudaError_t e = src.Alloc(bytes);
    cudaSetDevice(j);
    DeviceBuffer dst;
    if (e == cudaSuccess) e = dst.Alloc(bytes);
    cudaSetDevice(0);
    if (e != cudaSuccess) {
      pr.Skip(j, "p2p_gbs", "cannot allocate %zu MiB on GPUs 0 and %d: %s", bytes >> 20, j,
              cudaGetErrorString(e));
    } else {
      const double t = TimeSteps(pr, stream, [&] {
        return cudaMemcpyPeerAsync(dst.p, j, src.p, 0, bytes, stream) == cudaSuccess;
      });
      if (t > 0) {
        char how[128];
        snprintf(how, sizeof how, "cudaMemcpyPeer GPU 0 -> %d, %zu MiB, %s", j, bytes >> 20,
                 can01 ? "P2P enabled" : "no P2P: staged through host memory");
        pr.Metric(j, "p2p_gbs", static_cast<double>(bytes) / t / 1e9, how);
      } else {
        pr.Skip(j, "p2p_gbs", "cudaMemcpyPeerAsync failed");
      }
    }
    cudaStreamDestroy(stream);
  }
}

#ifdef GPUPLAN_HAVE_NCCL
void AllReduceTest(const Probe& pr, int count) {
  const size_t bytes = static_cast<size_t>(pr.o->transfer_mib * (1u << 20)) / 4 * 4;
  const size_t elems = bytes / 4;
  std::vector<ncclComm_t> comms(count);
  std::vector<int> devs(count);
  for (int i = 0; i < count; ++i) devs[i] = i;
  ncclResult_t r = ncclCommInitAll(comms.data(), count, devs.data());
  if (r != ncclSuccess) {
    pr.Skip(-1, "allreduce_busbw_gbs", "ncclCommInitAll: %s", ncclGetErrorString(r));
    return;
  }
  std::vector<void*> send(count, nullptr), recv(count, nullptr);
  std::vector<cudaStream_t> streams(count, nullptr);
  bool ok = true;
  for (int i = 0; i < count && ok; ++i) {
    cudaSetDevice(i);
    ok = cudaMalloc(&send[i], bytes) == cudaSuccess && cudaMalloc(&recv[i], bytes) == cudaSuccess &&
         cudaStreamCreate(&streams[i]) == cudaSuccess;
    if (ok) Fill<<<1024, 256, 0, streams[i]>>>(static_cast<float*>(send[i]), elems);
  }
  auto once = [&] {
    if (ncclGroupStart() != ncclSuccess) return false;
    for (int i = 0; i < count; ++i) {
      if (ncclAllReduce(send[i], recv[i], elems, ncclFloat, ncclSum, comms[i], streams[i]) !=
          ncclSuccess) {
        ncclGroupEnd();
        return false;
      }
    }
    return ncclGroupEnd() == ncclSuccess;
  };
  auto sync = [&] {
    for (int i = 0; i < count; ++i) {
      cudaSetDevice(i);
      cudaStreamSynchronize(streams[i]);
    }
  };
  double per = -1;
  if (ok && once() && once()) {  // warm-up: NCCL sets up its channels on first use
    sync();
    // Wall time over all GPUs, as nccl-tests measures it.
    cudaEvent_t a, b;
    cudaSetDevice(0);
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, streams[0]);
    ok = once();
    sync();
    cudaSetDevice(0);
    cudaEventRecord(b, streams[0]);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    int iters = ms > 0 ? static_cast<int>(pr.o->seconds_per_test * 1e3 / ms) : 3;
    if (iters < 3) iters = 3;
    cudaEventRecord(a, streams[0]);
    for (int k = 0; k < iters && ok; ++k) ok = once();
    sync();
    cudaSetDevice(0);
    cudaEventRecord(b, streams[0]);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms, a, b);
    if (ok && ms > 0) per = ms / 1e3 / iters;
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  if (per > 0) {
    // nccl-tests' bus bandwidth: algbw * 2(n-1)/n, comparable with the link speed.
    const double algbw = static_cast<double>(bytes) / per / 1e9;
    char how[128];
    snprintf(how, sizeof how, "ncclAllReduce float sum, %zu MiB, %d GPUs, busbw = algbw*2(n-1)/n",
             bytes >> 20, count);
    pr.Metric(-1, "allreduce_busbw_gbs", algbw * 2.0 * (count - 1) / count, how);
  } else {
    pr.Skip(-1, "allreduce_busbw_gbs", "NCCL all-reduce failed");
  }
  for (int i = 0; i < count; ++i) {
    cudaSetDevice(i);
    if (send[i]) cudaFree(send[i]);
    if (recv[i]) cudaFree(recv[i]);
    if (streams[i]) cudaStreamDestroy(streams[i]);
    ncclCommDestroy(comms[i]);
  }
}
#endif

}  // namespace

extern "C" __attribute__((visibility("default"))) int gpuplan_cuda_probe_run(
    const GpuplanCudaProbeOptions* options, const GpuplanCudaProbeSink* sink) {
  if (!options || !sink) return 2;
  Probe pr{options, sink};
  if (options->abi_version != GPUPLAN_CUDA_PROBE_ABI_VERSION) {
    pr.Skip(-1, "*", "CUDA plugin ABI %d, gpuplan expects %d: rebuild the plugin",
            GPUPLAN_CUDA_PROBE_ABI_VERSION, options->abi_version);
    return 2;
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    pr.Skip(-1, "*", "no usable CUDA device: %s",
            e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount returned 0");
    return 1;
  }
  if (options->max_gpus > 0 && count > options->max_gpus) count = options->max_gpus;
  const GemmKind kinds[] = {
      {"gemm_fp32_tflops", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4},
      {"gemm_tf32_tflops", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
      {"gemm_bf16_tflops", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
      {"gemm_fp16_tflops", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2},
  };
  for (int gpu = 0; gpu < count; ++gpu) {
    cudaSetDevice(gpu);
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, gpu)) != cudaSuccess) {
      pr.Skip(gpu, "*", "cudaGetDeviceProperties: %s", cudaGetErrorString(e));
      continue;
    }
    sink->device(sink->ctx, gpu, prop.name, static_cast<double>(prop.totalGlobalMem) / (1u << 30),
                 prop.major, prop.minor);
    cublasLtHandle_t lt = nullptr;
    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    const size_t workspace_bytes = 64u << 20;  // what cuBLAS recommends for Hopper
    DeviceBuffer workspace;
    if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS ||
        workspace.Alloc(workspace_bytes) != cudaSuccess) {
      for (const GemmKind& k : kinds) pr.Skip(gpu, k.id, "cuBLASLt could not start");
    } else {
      for (const GemmKind& k : kinds) {
        // TF32 tensor cores arrived with Ampere (8.0); BF16 too.
        if (prop.major < 8 && (k.compute != CUBLAS_COMPUTE_32F || k.type == CUDA_R_16BF)) {
          pr.Skip(gpu, k.id, "%s tensor cores need compute capability 8.0 (this GPU: %d.%d)",
                  k.id, prop.major, prop.minor);
          continue;
        }
        GemmTest(pr, gpu, lt, stream, k, workspace.p, workspace_bytes);
      }
    }
    if (lt) cublasLtDestroy(lt);
    MemoryTest(pr, gpu, stream);
    TransferTest(pr, gpu, stream);
    cudaStreamDestroy(stream);
  }
  if (count < 2) {
    pr.Skip(-1, "p2p_gbs", "needs at least 2 GPUs (found %d)", count);
    pr.Skip(-1, "allreduce_busbw_gbs", "needs at least 2 GPUs (found %d)", count);
    return 0;
  }
  PeerTest(pr, count);
#ifdef GPUPLAN_HAVE_NCCL
  AllReduceTest(pr, count);
#else
  pr.Skip(-1, "allreduce_busbw_gbs", "the CUDA plugin was built without NCCL (no nccl.h)");
#endif
  return 0;
}
