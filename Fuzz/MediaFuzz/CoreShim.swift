// Stand-ins for the two DriftCore enums DriftMedia names, so the fuzz target builds
// from DriftMedia's sources alone (DriftCore pulls in swift-crypto). Compiled only
// with -D DRIFT_MEDIA_FUZZ; the cases must match Sources/DriftCore/Bottle/*Ref.swift.
public enum ImageRef {
    public enum Format: String, Sendable, CaseIterable { case jpeg, png, webp }
}

public enum AudioRef {
    public enum Format: String, Sendable, CaseIterable { case ogg, webm, mp4, mpeg, wav }
}
