// A mixed-integer linear program as plain data, and the signature of a solver for it.
//
// The core builds the program (the campaign's commitments and schedule, gpuplan/campaign.h) and
// an edge library solves it (src/solver: GLPK), so the core links no solver and stays testable
// with any.
//
//   MipProblem p;
//   int x = p.AddVariable({.cost = 3, .upper = 10, .integer = true});
//   p.AddRow({{x, 1.0}}, 2.5, kMipInfinity);    // x >= 2.5
//   Result<MipSolution> s = solver(p);          // s->values[x] == 3, s->objective == 9
//
// Thread safety: plain values.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_MIP_H_
#define GPUPLAN_INCLUDE_GPUPLAN_MIP_H_

#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "gpuplan/status.h"

namespace gpuplan {

inline constexpr double kMipInfinity = std::numeric_limits<double>::infinity();

struct MipVariable {
  double cost = 0;  // objective coefficient (the program minimises)
  double lower = 0;
  double upper = kMipInfinity;
  bool integer = false;
};

struct MipRow {
  std::vector<std::pair<int, double>> terms;  // (variable, coefficient)
  double lower = -kMipInfinity;
  double upper = kMipInfinity;
};

struct MipProblem {
  std::vector<MipVariable> variables;
  std::vector<MipRow> rows;
  // A feasible solution to start from (one value per variable), or empty: the solver keeps it
  // when it finds nothing better in its time.
  std::vector<double> start;
  int AddVariable(MipVariable v) {
    variables.push_back(v);
    return static_cast<int>(variables.size()) - 1;
  }
  void AddRow(std::vector<std::pair<int, double>> terms, double lower, double upper) {
    rows.push_back({std::move(terms), lower, upper});
  }
};

struct MipSolution {
  double objective = 0;
  std::vector<double> values;  // one per variable
  bool proven_optimal = true;  // false: the time limit stopped the search first
};

// Solves to optimality (or the solver's limit, then proven_optimal = false); kUnsupported for
// an infeasible or unbounded program, kInternal when the solver fails.
using MipSolver = std::function<Result<MipSolution>(const MipProblem&)>;

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_MIP_H_
