# Drift Box — the two commands of the README are the contract:
#   make run   starts driftd on the simulated board (data under ./var)
#   make test  installs what is missing, builds, and runs every test

SWIFT ?= swift
CONFIG ?= board/sim.toml
DATA_DIR ?= ./var
BUILD_FLAGS ?=
DRIFTD = .build/debug/driftd

.PHONY: run test deps build build-tests browser-tests bench-api release fuzz clean image-vm-test

FUZZ_SECONDS ?= 60

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(BUILD_FLAGS) --product driftd

run: build
	@mkdir -p $(DATA_DIR)
	$(DRIFTD) run --config $(CONFIG) --data-dir $(DATA_DIR)

build-tests: deps
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	@scripts/meshtastic-venv.sh >/dev/null || echo "make: no meshtastic virtualenv (PyPI unreachable?); the Meshtastic conformance test will say so"

test: build-tests
	$(SWIFT) test $(BUILD_FLAGS) --skip-build
	@scripts/check-units.sh
	@scripts/check-gpiod-v2.sh
	@scripts/browser-tests.sh

# The visitor page in headless Chromium against a fresh driftd (screenshots in .build/artifacts/browser).
browser-tests: build-tests
	@scripts/browser-tests.sh

# Load benchmark of the visitor API (release build): wrk on the bottle list, chat fan-out to 200 sockets.
bench-api: deps
	@scripts/bench-api.sh

# libFuzzer over the NMEA framer and parser (seeds in Fuzz/NMEAFuzz/corpus) and over the
# media probes (seeds: the DriftMedia test fixtures) and over the mesh frame decoder, relay
# rewrite and reassembler (seeds in Fuzz/MeshFuzz/corpus), each bounded to FUZZ_SECONDS.
fuzz: deps
	Fuzz/NMEAFuzz/run.sh $(FUZZ_SECONDS)
	Fuzz/MediaFuzz/run.sh $(FUZZ_SECONDS)
	Fuzz/MeshFuzz/run.sh $(FUZZ_SECONDS)

# VM boot test of the disk image (tests/image/vm, docs/testing.md): boots IMAGE twice under
# QEMU/TCG with a GPS, an E22 and a BME280 behind it; ~5 minutes. Needs `make image` first
# (`make image-test` runs both). The host-side box and E22 module are the debug driftd.
IMAGE ?= .build/image/x86_64/driftbox-x86_64.img
image-vm-test: build
	@[ ! -x image/deps.sh ] || image/deps.sh
	python3 tests/image/vm/test_vm_boot.py --image $(IMAGE) --driftd $(DRIFTD)

release: deps
	$(SWIFT) build -c release --product driftd

clean:
	rm -rf .build var
