// The MipSolver (gpuplan/mip.h) over GLPK's branch-and-cut (glp_intopt, libglpk 5.0 from
// Debian): presolve on, terminal output off, a time limit; GLPK's own errors are caught by its
// error hook and returned as kInternal instead of aborting the process.
#ifndef GPUPLAN_SRC_SOLVER_GLPK_MIP_H_
#define GPUPLAN_SRC_SOLVER_GLPK_MIP_H_

#include "gpuplan/mip.h"

namespace gpuplan::solver {

struct GlpkLimits {
  int time_limit_ms = 2000;  // then the best solution found, proven_optimal = false
  double relative_gap = 1e-6;
};

Result<MipSolution> SolveWithGlpk(const MipProblem& problem, const GlpkLimits& limits = {});

// SolveWithGlpk with `limits`, as a MipSolver.
MipSolver GlpkSolver(const GlpkLimits& limits = {});

}  // namespace gpuplan::solver

#endif  // GPUPLAN_SRC_SOLVER_GLPK_MIP_H_
