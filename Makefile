# The README's two commands: `make demo` (set up, build, run the bundled example) and
# `make test` (set up, build, run every test, then the sanitizer build's tests).
.PHONY: setup build dev-build asan-build demo test test-dev test-asan format-check bench clean

JOBS ?= 2

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

test-dev: dev-build
	ctest --preset dev

test-asan: asan-build
	ctest --preset asan-ubsan -LE no-sanitizer

format-check:
	@bash scripts/check_format.sh

test: format-check test-dev test-asan

bench: build
	@bash bench/run.sh

clean:
	rm -rf build
