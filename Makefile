# gpusim — thin front end over CMake.
#   make run    install what is missing, build, render the main scene
#               (a window with a display, else out/triangle.png)
#   make test   install what is missing, build (plain and ASan+UBSan), run the whole suite
#   make bench  install what is missing, build optimised, run the benchmarks
#   make bench-peer  the same frames in gpusim and in Mesa (llvmpipe, softpipe)
#   make install  build, then install under PREFIX (default /usr/local)
# Variables: BUILD (build dir), JOBS (parallel jobs), PREFIX (make install).

BUILD      ?= build
BUILD_SAN  ?= build-san
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PACKAGES   := cmake pkg-config gcc make liblua5.4-dev lua5.4 libsdl2-dev libstb-dev libcmocka-dev llvm-15-dev
TEST_PACKAGES := xvfb xauth imagemagick libxml2-utils groff-base man-db chromium
CMAKE_FLAGS ?=

.PHONY: all build run test bench bench-peer install fuzz deps deps-test clean help

all: build

help:
	@echo "make run    - install dependencies, build, run the main scene"
	@echo "make test   - install dependencies, build, run all tests (plain and sanitized)"
	@echo "make bench  - build and run the benchmarks"
	@echo "make bench-peer - gpusim beside Mesa's llvmpipe and softpipe (installs OSMesa)"
	@echo "make install [PREFIX=/usr/local] - build and install (cmake --install)"
	@echo "make fuzz   - build the fuzz targets (clang) and run each for FUZZ_SECONDS (60)"
	@echo "make clean  - remove build directories"

# Install the Debian packages that are missing: with apt-get as root,
# otherwise print the exact command to run.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "gpusim: installing$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || \
	      { echo "gpusim: apt-get install$$missing failed" >&2; exit 1; }; \
	  else \
	    echo "gpusim: missing packages:$$missing" >&2; \
	    echo "gpusim: run: sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi
endef

deps:
	$(call install_missing,$(PACKAGES))

deps-test: deps
	$(call install_missing,$(TEST_PACKAGES))

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGS_WERROR=ON $(CMAKE_FLAGS)

# The sanitized build is also the build without the native backend (GS_JIT=OFF,
# docs/uops.md "Native code"): `make test` passes the suite with and without it.
$(BUILD_SAN)/CMakeCache.txt:
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DGS_WERROR=ON -DGS_SANITIZE=ON -DGS_JIT=OFF $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main scene: in a window when there is a display, else to out/triangle.png.
run: build
	@if [ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "gpusim: showing scenes/triangle.lua (Esc or q quits)"; \
	  ./$(BUILD)/gpusim scenes/triangle.lua; \
	else \
	  mkdir -p out && ./$(BUILD)/gpusim --headless -o out/triangle.png scenes/triangle.lua && \
	  echo "gpusim: no display: rendered scenes/triangle.lua to out/triangle.png"; \
	fi

test: deps-test $(BUILD)/CMakeCache.txt $(BUILD_SAN)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j $(JOBS)

bench: build
	./$(BUILD)/gpusim bench

# make bench-peer (docs/pipeline.md, "Against llvmpipe and softpipe"):
# installs OSMesa (libosmesa6-dev, which nothing else needs), builds gpusim
# and gpusim-peer-osmesa (src/bench/) and runs `gpusim bench --peer`: the
# bench frames in gpusim and in Mesa's llvmpipe (1 and 2 threads) and
# softpipe, interleaved, PEER_RUNS runs each; medians, ranges, issue 13's
# ratios and an image comparison.
PEER_PACKAGES := libosmesa6-dev
PEER_RUNS ?= 5
bench-peer: deps $(BUILD)/CMakeCache.txt
	$(call install_missing,$(PEER_PACKAGES))
	cmake -S . -B $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target gpusim gpusim-peer-osmesa
	./$(BUILD)/gpusim bench --peer ./$(BUILD)/gpusim-peer-osmesa --runs $(PEER_RUNS)

# cmake --install: bin/gpusim, the Lua module and helpers where a stock
# lua5.4 finds them under PREFIX, scenes and docs in share/gpusim, gpusim(1),
# libgpusim.a with its headers and gpusim.pc (README, "Installing").
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix "$(PREFIX)"

# make fuzz: the libFuzzer targets of tests/fuzz (docs/fuzzing.md), built
# with clang, ASan and UBSan into $(BUILD_FUZZ) (-DGS_FUZZ=ON); each runs for
# FUZZ_SECONDS seconds over a work corpus in $(BUILD_FUZZ)/corpus/NAME seeded
# from tests/fuzz/corpus/NAME. A crash, leak, sanitizer report or timeout
# fails make fuzz and leaves the reproducer in $(BUILD_FUZZ)/artifacts/.
BUILD_FUZZ   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := qpu_asm qpu_disasm cle dumpcl sph image sass_asm sass_disasm pica_asm pica_shbin pica_fast agx_asm agx_disasm agx_fast
FUZZ_PACKAGES := clang libclang-rt-14-dev

fuzz: deps
	$(call install_missing,$(FUZZ_PACKAGES))
	@test -f $(BUILD_FUZZ)/CMakeCache.txt || \
	  CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGS_FUZZ=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz_targets
	@mkdir -p $(BUILD_FUZZ)/artifacts
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD_FUZZ)/corpus/$$t && cp -n tests/fuzz/corpus/$$t/* $(BUILD_FUZZ)/corpus/$$t/ 2>/dev/null; \
	  echo "gpusim: fuzzing $$t for $(FUZZ_SECONDS) s"; \
	  ./$(BUILD_FUZZ)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -timeout=60 \
	    -rss_limit_mb=2560 -artifact_prefix=$(BUILD_FUZZ)/artifacts/$$t- $(BUILD_FUZZ)/corpus/$$t || \
	    { echo "gpusim: fuzz_$$t failed: reproducer in $(BUILD_FUZZ)/artifacts/" >&2; exit 1; }; \
	done

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
