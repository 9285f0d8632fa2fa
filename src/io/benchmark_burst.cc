#include "io/benchmark_burst.h"

namespace gpuplan::io {

double MeanBatchesQueuedBehind(int requests, int concurrent) {
  if (requests <= 0 || concurrent <= 0 || requests <= concurrent)
    return 0;
  // Full batches k = 0 .. full-1 of `concurrent` requests each, then `rest` requests in batch
  // `full`.
  const int full = requests / concurrent, rest = requests % concurrent;
  const double queued =
      concurrent * (static_cast<double>(full) * (full - 1) / 2) + static_cast<double>(rest) * full;
  return queued / requests;
}

}  // namespace gpuplan::io
