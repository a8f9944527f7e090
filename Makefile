# Trine's build entry point for testing frameworks (OpenBench, fastchess scripts, CI):
#
#   make                      build the release binary and copy it to ./trine
#   make EXE=/path/trine-dev  ... copied to that path (OpenBench runs `make EXE=... CC=...`;
#                             CC is accepted and ignored: Trine is pure Rust)
#   make test                 all tests of the workspace (engine + match runner)
#   make bench                build, then `trine bench` (last line: <nodes> nodes <nps> nps)
#   make clean                cargo clean and remove $(EXE)
#
# Cargo features (e.g. `tune`, which turns search constants into UCI options for SPSA):
#   make EXE=trine-tune FEATURES=tune
# Extra rustc flags go through the environment as usual, e.g.
#   RUSTFLAGS="-C target-cpu=native" make EXE=trine-native

EXE ?= trine
CARGO ?= cargo
FEATURES ?=
TARGET_DIR := $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),target)
FEATURE_FLAGS := $(if $(FEATURES),--features "$(FEATURES)",)

ifeq ($(OS),Windows_NT)
SUFFIX := .exe
else
SUFFIX :=
endif

.PHONY: all test bench clean

all:
	$(CARGO) build --release --bin trine $(FEATURE_FLAGS)
	cp "$(TARGET_DIR)/release/trine$(SUFFIX)" "$(EXE)$(SUFFIX)"

test:
	$(CARGO) test --release --workspace

bench: all
	"$(TARGET_DIR)/release/trine$(SUFFIX)" bench

clean:
	$(CARGO) clean
	rm -f "$(EXE)$(SUFFIX)"
