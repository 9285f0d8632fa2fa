// The largest whole number with a monotone property (internal to the core).
#ifndef GPUPLAN_SRC_CORE_LARGEST_H_
#define GPUPLAN_SRC_CORE_LARGEST_H_

#include <algorithm>
#include <climits>

namespace gpuplan {

// The largest n in [1, limit] with holds(n), or 0 when not even 1 holds. REQUIRES: holds is
// monotone (true up to some n, false after), as memory fit and latency targets are in a batch
// or a sequence length. Doubling then bisecting finds it in O(log limit) calls.
template <typename Holds>
int LargestWhere(int limit, Holds holds) {
  if (limit < 1 || !holds(1))
    return 0;
  int lo = 1, hi = 2;
  while (hi <= limit && holds(hi)) {
    lo = hi;
    if (hi > limit / 2) {  // doubling would pass the limit (and could overflow int)
      hi = limit + 1;
      break;
    }
    hi *= 2;
  }
  hi = std::min(hi, limit == INT_MAX ? limit : limit + 1);
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (holds(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace gpuplan

#endif  // GPUPLAN_SRC_CORE_LARGEST_H_
