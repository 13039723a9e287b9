# Sourced by Fuzz/*/run.sh: runs a libFuzzer binary with the limits every target shares.
# Usage: run_fuzzer BINARY CORPUS_DIR SECONDS MAX_LEN
#
# Memory. AddressSanitizer keeps freed memory in a quarantine to catch a use after free.
# Its default, 256 MB, fills with the many small strings and arrays Swift code frees, and
# the sanitizer's allocator keeps those pages after they leave the quarantine: each target
# reached 483 to 520 MB within 60 s (seeds 1 to 3), and the media target's seed 3 and a CI
# run crossed the 512 MB limit, while the live heap was about 27 MB, 24 MB of it
# libFuzzer's own feature tables. The limit measured the sanitizer, not our code. A 32 MB
# quarantine still holds the frees of many thousands of inputs (one input frees well
# under a megabyte); the targets then settle at 115 to 142 MB, so 512 MB again stands for
# a leak or a runaway allocation in the code under test (one allocation over the limit
# stops the run too: -malloc_limit_mb defaults to it). Figures and commands:
# docs/testing.md, "libFuzzer". ASAN_OPTIONS from the environment come after ours and win.
run_fuzzer() {
    ASAN_OPTIONS="quarantine_size_mb=32${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        "$1" -max_total_time="$3" -max_len="$4" -rss_limit_mb=512 "$2"
}
