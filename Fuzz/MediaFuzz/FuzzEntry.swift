// libFuzzer entry point for DriftMedia's image and audio probes.
// Built outside SwiftPM by Fuzz/MediaFuzz/run.sh with `swiftc -sanitize=fuzzer,address`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let image = try? MediaProbe.image(bytes) {
        precondition(image.width > 0 && image.height > 0, "image with an empty side")
    }
    if let audio = try? MediaProbe.audio(bytes) {
        precondition(!audio.durationSeconds.isNaN && audio.durationSeconds >= 0, "negative or NaN duration")
    }
    return 0
}
