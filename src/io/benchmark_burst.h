// A serving benchmark that issues every request at once (vllm bench serve --request-rate inf,
// the GPUStack performance lab's runs): the engine runs as many as it can hold and the rest wait.
#pragma once

namespace gpuplan::io {

// The mean, over `requests` issued together, of the batches that run before each one starts when
// `concurrent` run at a time and each batch holds its slots for the same time: request i starts
// after floor(i / concurrent) of them. 0 when every request fits the first batch. A request's
// time to first token is its prefill plus this many batch lifetimes (prefill and decode of one
// batch): the queue the benchmark's mean TTFT counts and a single batch's does not.
double MeanBatchesQueuedBehind(int requests, int concurrent);

}  // namespace gpuplan::io
