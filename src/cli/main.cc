// gpuplan: read the environment once, parse flags, run the library, print, map the result to an
// exit code.
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  return gpuplan::cli::RunCli(argc, argv, gpuplan::cli::CliEnvironment::FromProcess(), std::cout,
                              std::cerr);
}
