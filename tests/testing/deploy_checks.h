// Checks shared by the deploy renderer and CLI tests: the generated files must be valid bash,
// YAML and HCL, because a user runs them as they are.
#ifndef GPUPLAN_TESTS_TESTING_DEPLOY_CHECKS_H_
#define GPUPLAN_TESTS_TESTING_DEPLOY_CHECKS_H_

#include <map>
#include <string>

namespace gpuplan::testing {

// `text` with every run of spaces collapsed to one, so tests can look for "count = 2" whatever
// the '=' alignment.
std::string Squeeze(const std::string& text);

// Runs `bash -n` (or `sh -n` with sh = true) on `script`; returns the shell's complaints, "" when
// the syntax is valid.
std::string ShellSyntaxErrors(const std::string& script, bool sh = false);

// Expects the four deploy files (name -> text) to be well formed: run-instances.sh and every
// shell script inside cloud-init.yaml pass `bash -n`; cloud-init.yaml parses as YAML and starts
// with #cloud-config; main.tf has balanced braces and quotes and, when terraform is installed,
// passes `terraform fmt -check`.
void CheckDeployFiles(const std::map<std::string, std::string>& files);

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_DEPLOY_CHECKS_H_
