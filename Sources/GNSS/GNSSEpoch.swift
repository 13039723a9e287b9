/// One receiver cycle: the merged fix and the sky view at its end.
public struct GNSSEpoch: Sendable, Equatable {
    /// The time of day the cycle's sentences carried (also when no date is known yet).
    public var timeOfDay: NMEATimeOfDay?
    public var fix: GNSSFix
    public var sky: SkyView
    /// Number of sentences merged into this epoch.
    public var sentenceCount: Int

    public init(timeOfDay: NMEATimeOfDay?, fix: GNSSFix, sky: SkyView, sentenceCount: Int) {
        self.timeOfDay = timeOfDay
        self.fix = fix
        self.sky = sky
        self.sentenceCount = sentenceCount
    }
}
