# The README's two commands: `make demo` (set up, build, run the bundled example) and
# `make test` (set up, build, run every test, then the sanitizer build's tests).
.PHONY: setup build dev-build asan-build demo test test-dev test-asan test-nightly fuzz test-fuzz format-check bench clean

JOBS ?= 2
# ccache: share compiled objects between clones and build directories of this repository.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

setup:
	@bash scripts/setup.sh

build: setup
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

dev-build: setup
	cmake --preset dev >/dev/null
	cmake --build --preset dev -j $(JOBS)

asan-build: setup
	cmake --preset asan-ubsan >/dev/null
	cmake --build --preset asan-ubsan -j $(JOBS)

demo: build
	@bash examples/demo.sh build/release/bin/ptec

# Tests labelled nightly (e.g. quantization accuracy at 224x224 on the portable kernels) run
# with `make test-nightly`.
test-dev: dev-build
	ctest --preset dev -LE nightly

test-asan: asan-build
	ctest --preset asan-ubsan -LE 'no-sanitizer|nightly'

test-nightly: dev-build
	ctest --preset dev -L nightly

# libFuzzer build of the program loader (clang, ASan+UBSan, coverage on every library), in its
# own build dir; `test-fuzz` runs a short deterministic session on the fixtures.
fuzz: setup
	CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DPTEC_BUILD_FUZZERS=ON -DPTEC_SANITIZE=ON -DPTEC_BUILD_BENCH=OFF \
	  -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
	cmake --build build/fuzz -j $(JOBS) --target program_fuzzer

test-fuzz: fuzz
	ctest --test-dir build/fuzz -R program_fuzzer --output-on-failure

format-check:
	@bash scripts/check_format.sh

test: format-check test-dev test-asan test-fuzz

bench: build
	@bash bench/compare.sh

clean:
	rm -rf build
