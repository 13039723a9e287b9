# Drift Box — the two commands of the README are the contract:
#   make run   starts driftd on the simulated board (data under ./var)
#   make test  installs what is missing, builds, and runs every test

SWIFT ?= swift
CONFIG ?= board/sim.toml
DATA_DIR ?= ./var
BUILD_FLAGS ?=
DRIFTD = .build/debug/driftd

.PHONY: run test deps build build-tests browser-tests bench-api release fuzz clean image image-test image-vm-test arm64 arm64-test arm64-image-test

FUZZ_SECONDS ?= 60
# Tests Swift Testing runs at once (docs/testing.md, "On a busy machine"): unbounded, it starts
# all 1,350 together and a test's next step waits behind every other test's first on the
# cooperative pool — 26 s beside stress-ng, past the waits of the pty, socket and watchdog tests.
TEST_WIDTH ?= 48

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
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test $(BUILD_FLAGS) --skip-build
	@scripts/check-units.sh
	@scripts/check-imports.py
	@scripts/check-gpiod-v2.sh
	@python3 tests/arm64/scripts_guard_test.py
	@scripts/browser-tests.sh
	@scripts/api-fuzz.sh

# The visitor page in headless Chromium against a fresh driftd (screenshots in .build/artifacts/browser).
browser-tests: build-tests
	@scripts/browser-tests.sh

# Load benchmark of the visitor API (release build): wrk on the bottle list, chat fan-out to 200 sockets.
bench-api: deps
	@scripts/bench-api.sh

# libFuzzer over the NMEA framer and parser (seeds in Fuzz/NMEAFuzz/corpus) and over the
# media probes (seeds: the DriftMedia test fixtures) and over the mesh frame decoder, relay
# rewrite and reassembler (seeds in Fuzz/MeshFuzz/corpus), each bounded to FUZZ_SECONDS and to
# 512 MB with ASan's quarantine at 32 MB (Fuzz/limits.sh, docs/testing.md "libFuzzer").
# Two targets at a time, one core each (this machine has two), each target's output together.
FUZZ_TARGETS = NMEAFuzz MediaFuzz MeshFuzz
fuzz: deps
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(addprefix fuzz-,$(FUZZ_TARGETS))

.PHONY: $(addprefix fuzz-,$(FUZZ_TARGETS))
$(addprefix fuzz-,$(FUZZ_TARGETS)): fuzz-%:
	Fuzz/$*/run.sh $(FUZZ_SECONDS)

# The release driftd as the image ships it (static Swift runtime, lean link: docs/performance.md, "Idle").
release: deps
	@scripts/build-release.sh

# The flashable disk image (docs/image.md): Debian 12 + driftd, built without mounting anything.
# ARCH=arm64 BOARD=rpi4b|rpi5|rpi-zero2w: the Raspberry Pi image (docs/arm64.md).
ARCH ?= x86_64
BOARD ?= rpi4b
IMAGE_DIR = .build/image/$(ARCH)
IMAGE = $(IMAGE_DIR)/driftbox-$(ARCH).img
# The image's own mtime is SOURCE_DATE_EPOCH (reproducible); this stamp says when it was built.
IMAGE_STAMP = $(IMAGE_DIR)/.built
IMAGE_INPUTS := $(shell find image systemd board Sources docs -type f 2>/dev/null) Package.swift Package.resolved README.md VERSION \
	scripts/build-release.sh tools/driftd.order tools/driftd.ld

image:
	ARCH=$(ARCH) BOARD=$(BOARD) image/build.sh
	@touch $(IMAGE_STAMP)

$(IMAGE_STAMP): $(IMAGE_INPUTS)
	ARCH=$(ARCH) BOARD=$(BOARD) image/build.sh
	@touch $@

# Boots the image's root filesystem under systemd-nspawn and checks driftd under systemd
# (rebuilds the image first only if an input is newer than it).
image-test: $(IMAGE_STAMP)
	@image/deps.sh
	python3 tests/image/container_boot_test.py $(IMAGE_DIR)/rootfs $(IMAGE)

# Boots the whole disk image twice under QEMU/TCG (tests/image/vm, docs/testing.md): NMEA on
# ttyS1, a strapped E22 on ttyS2 (played by the host's debug driftd), a BME280 on i2c-stub,
# a power cut and a BOXCONF change. 2–8 minutes (two TCG boots of 45–80 s each).
image-vm-test: $(IMAGE_STAMP) build
	@image/deps.sh
	python3 tests/image/vm/test_vm_boot.py --image $(IMAGE) --driftd $(DRIFTD)

# arm64 (docs/arm64.md): driftd cross-built for aarch64 with Debian's Swift 6.2.3 in a sid
# chroot, one static executable → .build-arm64/bin/driftd. The chroot, sysroot and build are
# cached in .build-arm64/ (DRIFTBOX_ARM64_CACHE), which `make clean` keeps. Not part of `make test`.
arm64:
	@image/deps.sh arm64
	image/arm64/build.sh

# The aarch64 driftd under qemu-user: version, config check, selftest, nmea decode (against the
# x86_64 debug build's output), run + visitor API + SIGTERM (tests/arm64/emulated_test.py).
arm64-test: arm64 build
	python3 tests/arm64/emulated_test.py --driftd .build-arm64/bin/driftd --x86-driftd $(DRIFTD)

# The Pi image booted whole under qemu-system-aarch64 (virt machine, the image's own kernel,
# initrd and root): driftd reaches READY under systemd, the visitor API answers
# (tests/arm64/vm_boot_test.py). Builds the image first (needs binfmt_misc for qemu-aarch64).
arm64-image-test:
	@image/deps.sh arm64 binfmt
	$(MAKE) image ARCH=arm64 BOARD=$(BOARD)
	python3 tests/arm64/vm_boot_test.py .build/image/arm64/driftbox-arm64-$(BOARD).img

clean:
	rm -rf .build .build-release var
