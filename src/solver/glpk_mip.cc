#include "solver/glpk_mip.h"

#include <glpk.h>

#include <cmath>
#include <memory>
#include <string>

namespace gpuplan::solver {
namespace {

int BoundType(double lower, double upper) {
  const bool lo = std::isfinite(lower), up = std::isfinite(upper);
  if (lo && up)
    return lower == upper ? GLP_FX : GLP_DB;
  if (lo)
    return GLP_LO;
  return up ? GLP_UP : GLP_FR;
}

// GLPK stops the process on a malformed call (glp_error), so every input it would reject is
// rejected here first: indices out of range, NaN, and a lower bound above an upper one.
Status CheckProblem(const MipProblem& p) {
  auto bad_bounds = [](double lo, double up) {
    return std::isnan(lo) || std::isnan(up) || lo > up || lo == kMipInfinity || up == -kMipInfinity;
  };
  for (std::size_t j = 0; j < p.variables.size(); ++j) {
    const MipVariable& v = p.variables[j];
    if (!std::isfinite(v.cost) || bad_bounds(v.lower, v.upper))
      return Status::Internal("MIP variable " + std::to_string(j) + " has a bad cost or bounds");
  }
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const MipRow& r = p.rows[i];
    if (bad_bounds(r.lower, r.upper))
      return Status::Internal("MIP row " + std::to_string(i) + " has bad bounds");
    for (const auto& [var, coef] : r.terms) {
      if (var < 0 || static_cast<std::size_t>(var) >= p.variables.size() || !std::isfinite(coef))
        return Status::Internal("MIP row " + std::to_string(i) + " has a bad term");
    }
  }
  return Status::Ok();
}

// Hands GLPK the caller's feasible solution once, when it first asks for heuristic solutions.
struct StartHint {
  const std::vector<double>* start = nullptr;
  bool given = false;
};

void GiveStart(glp_tree* tree, void* info) {
  auto* hint = static_cast<StartHint*>(info);
  if (glp_ios_reason(tree) != GLP_IHEUR || hint->given || hint->start->empty())
    return;
  hint->given = true;
  std::vector<double> x(1, 0);  // 1-based
  x.insert(x.end(), hint->start->begin(), hint->start->end());
  glp_ios_heur_sol(tree, x.data());
}

struct ProbDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

}  // namespace

Result<MipSolution> SolveWithGlpk(const MipProblem& problem, const GlpkLimits& limits) {
  if (Status s = CheckProblem(problem); !s.ok())
    return s;
  const int n = static_cast<int>(problem.variables.size());
  const int m = static_cast<int>(problem.rows.size());
  MipSolution out;
  if (n == 0)
    return out;
  std::unique_ptr<glp_prob, ProbDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), n);
  for (int j = 0; j < n; ++j) {
    const MipVariable& v = problem.variables[static_cast<std::size_t>(j)];
    glp_set_col_bnds(lp.get(), j + 1, BoundType(v.lower, v.upper),
                     std::isfinite(v.lower) ? v.lower : 0, std::isfinite(v.upper) ? v.upper : 0);
    glp_set_obj_coef(lp.get(), j + 1, v.cost);
    if (v.integer)
      glp_set_col_kind(lp.get(), j + 1, GLP_IV);
  }
  // GLPK's arrays are 1-based: element 0 is unused.
  std::vector<int> ia(1), ja(1);
  std::vector<double> ar(1);
  if (m > 0)
    glp_add_rows(lp.get(), m);
  for (int i = 0; i < m; ++i) {
    const MipRow& r = problem.rows[static_cast<std::size_t>(i)];
    glp_set_row_bnds(lp.get(), i + 1, BoundType(r.lower, r.upper),
                     std::isfinite(r.lower) ? r.lower : 0, std::isfinite(r.upper) ? r.upper : 0);
    for (const auto& [var, coef] : r.terms) {
      ia.push_back(i + 1);
      ja.push_back(var + 1);
      ar.push_back(coef);
    }
  }
  glp_load_matrix(lp.get(), static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());

  // The LP relaxation first, then branch-and-cut from its basis. The primal simplex with the LP
  // presolver is fastest on the campaign's programs (0.4 s where the dual simplex takes 9 s);
  // without the presolver GLPK 5.0's primal simplex reports some of them unbounded after removing
  // its perturbation, so the dual simplex is the fallback.
  glp_smcp lp_parm;
  glp_init_smcp(&lp_parm);
  lp_parm.msg_lev = GLP_MSG_OFF;
  lp_parm.meth = GLP_PRIMAL;
  lp_parm.presolve = GLP_ON;
  lp_parm.tm_lim = limits.time_limit_ms;
  int lp_rc = glp_simplex(lp.get(), &lp_parm);
  if (lp_rc != 0 || glp_get_status(lp.get()) != GLP_OPT) {
    glp_std_basis(lp.get());
    lp_parm.meth = GLP_DUALP;
    lp_parm.presolve = GLP_OFF;
    lp_rc = glp_simplex(lp.get(), &lp_parm);
  }
  if ((lp_rc != 0 || glp_get_status(lp.get()) != GLP_OPT) &&
      problem.start.size() == problem.variables.size() && lp_rc == GLP_ETMLIM) {
    // Out of time before the relaxation was solved: the start is the best known.
    out.proven_optimal = false;
    out.values = problem.start;
    for (std::size_t j = 0; j < problem.start.size(); ++j)
      out.objective += problem.variables[j].cost * problem.start[j];
    return out;
  }
  if (lp_rc != 0 || glp_get_status(lp.get()) != GLP_OPT) {
    if (glp_get_status(lp.get()) == GLP_NOFEAS)
      return Status::Unsupported("the program has no feasible solution");
    return Status::Internal("GLPK could not solve the relaxation (glp_simplex returned " +
                            std::to_string(lp_rc) + ")");
  }
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_OFF;
  parm.tm_lim = limits.time_limit_ms;
  parm.mip_gap = limits.relative_gap;
  // Branch on the first fractional variable: callers put the variables to fix first first.
  parm.br_tech = GLP_BR_FFV;
  parm.mir_cuts = GLP_ON;
  parm.fp_heur = GLP_ON;
  StartHint hint{&problem.start, false};
  if (problem.start.size() == problem.variables.size()) {
    parm.cb_func = GiveStart;
    parm.cb_info = &hint;
  }
  const int rc = glp_intopt(lp.get(), &parm);
  const int status = glp_mip_status(lp.get());
  if (status != GLP_OPT && status != GLP_FEAS && hint.given) {
    // Stopped before GLPK kept any solution of its own: the start is the best known.
    out.proven_optimal = false;
    out.values = problem.start;
    for (std::size_t j = 0; j < problem.start.size(); ++j)
      out.objective += problem.variables[j].cost * problem.start[j];
    return out;
  }
  if (rc == GLP_ENOPFS || rc == GLP_ENODFS || status == GLP_NOFEAS)
    return Status::Unsupported("the program has no feasible solution");
  if (status != GLP_OPT && status != GLP_FEAS) {
    return Status::Internal("GLPK stopped without a solution (glp_intopt returned " +
                            std::to_string(rc) + ")");
  }
  out.proven_optimal = status == GLP_OPT;
  out.objective = glp_mip_obj_val(lp.get());
  out.values.resize(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    out.values[static_cast<std::size_t>(j)] = glp_mip_col_val(lp.get(), j + 1);
  return out;
}

MipSolver GlpkSolver(const GlpkLimits& limits) {
  return [limits](const MipProblem& p) { return SolveWithGlpk(p, limits); };
}

}  // namespace gpuplan::solver
