# The two set-up commands in README.md: `make demo` and `make test`. Both install missing Debian
# packages first (scripts/install-deps.sh), so they work on a fresh Debian 12 machine as root.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DGPUPLAN_WERROR=ON

.PHONY: deps build demo test test-fast test-asan bench fuzz format clean

deps:
	scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded catalog.
demo: build
	scripts/demo.sh $(BUILD)/gpuplan

# Everything CI checks: unit and CLI tests, contracts, the accuracy harness, then ASan+UBSan.
test: build
	scripts/run-tests.sh $(BUILD) $(ASAN_BUILD)

# Unit tests only, no sanitizer build (for quick local iterations).
test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: deps
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_BUILD_BENCHMARKS=ON -DGPUPLAN_BUILD_TESTS=OFF
	cmake --build build-bench -j $(JOBS)
	for b in build-bench/*_bench; do $$b; done

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS)

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-bench build-fuzz
