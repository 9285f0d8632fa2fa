/* The C interface between `gpuplan probe` and its optional CUDA plugin
 * (libgpuplan_cuda_probe.so, built from cuda/ when nvcc, cuBLASLt and optionally NCCL exist).
 *
 * gpuplan dlopens the plugin at run time, so the gpuplan binary needs no CUDA to build or run.
 * The plugin exports one function, gpuplan_cuda_probe_run, which reports every result and every
 * failure through the sink's callbacks (metric ids as in agent/probe_verdict.h). Plain C types
 * only, so the plugin and gpuplan may come from different compilers.
 *
 * Thread safety: the plugin calls the sink from the calling thread only. */
#ifndef GPUPLAN_SRC_AGENT_CUDA_PROBE_ABI_H_
#define GPUPLAN_SRC_AGENT_CUDA_PROBE_ABI_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change to the structs or the function below. */
#define GPUPLAN_CUDA_PROBE_ABI_VERSION 1
#define GPUPLAN_CUDA_PROBE_SYMBOL "gpuplan_cuda_probe_run"

typedef struct GpuplanCudaProbeOptions {
  int abi_version;         /* GPUPLAN_CUDA_PROBE_ABI_VERSION */
  double seconds_per_test; /* timed phase of each test, after a warm-up */
  int gemm_size;           /* M = N = K of the square GEMMs */
  double memory_test_gib;  /* size of each buffer of the device copy test */
  double transfer_mib;     /* size of each host<->device and GPU<->GPU copy */
  int max_gpus;            /* probe at most this many GPUs (0 = all) */
} GpuplanCudaProbeOptions;

typedef struct GpuplanCudaProbeSink {
  void* ctx;
  /* One call per GPU before its metrics: index, name, total memory (GiB), compute capability. */
  void (*device)(void* ctx, int gpu, const char* name, double memory_gib, int cc_major,
                 int cc_minor);
  /* A measured value. gpu is -1 for whole-machine metrics (e.g. allreduce_busbw_gbs). */
  void (*metric)(void* ctx, int gpu, const char* metric_id, double value, const char* how);
  /* A metric that could not be measured, and why; metric_id "*" means all GPU metrics. */
  void (*skipped)(void* ctx, int gpu, const char* metric_id, const char* reason);
} GpuplanCudaProbeSink;

/* Runs every test; returns 0 when the tests ran (some may be skipped), non-zero when the ABI
 * version differs or CUDA is unusable (the reason went to sink->skipped). */
typedef int (*GpuplanCudaProbeRunFn)(const GpuplanCudaProbeOptions* options,
                                     const GpuplanCudaProbeSink* sink);

#ifdef __cplusplus
}
#endif

#endif /* GPUPLAN_SRC_AGENT_CUDA_PROBE_ABI_H_ */
