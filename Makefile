# gpusim — thin front end over CMake.
#   make run    install what is missing, build, render the main scene
#               (a window with a display, else out/triangle.png)
#   make test   install what is missing, build (plain and ASan+UBSan), run the whole suite
#   make bench  install what is missing, build optimised, run the benchmarks
# Variables: BUILD (build dir), JOBS (parallel jobs).

BUILD      ?= build
BUILD_SAN  ?= build-san
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PACKAGES   := cmake pkg-config gcc make liblua5.4-dev lua5.4 libsdl2-dev libstb-dev libcmocka-dev
TEST_PACKAGES := xvfb xauth imagemagick libxml2-utils
CMAKE_FLAGS ?=

.PHONY: all build run test bench deps deps-test clean help

all: build

help:
	@echo "make run    - install dependencies, build, run the main scene"
	@echo "make test   - install dependencies, build, run all tests (plain and sanitized)"
	@echo "make bench  - build and run the benchmarks"
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

$(BUILD_SAN)/CMakeCache.txt:
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DGS_WERROR=ON -DGS_SANITIZE=ON $(CMAKE_FLAGS)

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

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
