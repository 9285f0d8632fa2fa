# The two set-up commands in README.md: `make demo` and `make test`. Both install missing Debian
# packages first (scripts/install-deps.sh), so they work on a fresh Debian 12 machine as root.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DGPUPLAN_WERROR=ON

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600

.PHONY: deps build demo test test-fast test-asan check-agent bench fuzz fuzz-build fuzz-smoke format clean

deps:
	scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded catalog.
demo: build
	scripts/demo.sh $(BUILD)/gpuplan

# Everything CI checks: unit and CLI tests, contracts, the accuracy harness, ASan+UBSan, then
# the fuzz smoke run (about 20 s per target).
test: build fuzz-build
	scripts/run-tests.sh $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

# Unit tests only, no sanitizer build (for quick local iterations).
test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The portable agent alone: build/gpuplan-agent, its glibc and ldd checks, and its run in a
# Debian 11 chroot (docs/on-instance.md, "The portable agent"; also part of `make test`).
check-agent: build
	scripts/check-agent-portable.sh $(BUILD)

bench: deps
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_BUILD_BENCHMARKS=ON -DGPUPLAN_BUILD_TESTS=OFF
	cmake --build build-bench -j $(JOBS)
	for b in build-bench/*_bench; do $$b; done

# The libFuzzer targets (clang; every gpuplan library instrumented), a build of its own: about
# 6 minutes from scratch on 2 cores (docs/development.md, "Fuzzing").
fuzz-build: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers

# About 20 s per target; fails on any crash, leak, timeout or out-of-memory.
fuzz-smoke: fuzz-build
	scripts/fuzz-smoke.sh $(FUZZ_BUILD) 20

# The long run: FUZZ_SECONDS (default 600) per target, growing the same corpus.
fuzz: fuzz-build
	scripts/fuzz-smoke.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-bench $(FUZZ_BUILD)
