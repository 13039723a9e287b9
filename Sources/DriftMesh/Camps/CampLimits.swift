/// Byte limits of the camp protocol's text fields (UTF-8 bytes, not characters).
public enum CampLimits {
    /// A camp's name.
    public static let name = 32
    /// The note of an announce.
    public static let note = 64
    /// Chat lines and the text of requests, events and emergencies.
    public static let text = 160
    /// An event's title.
    public static let title = 48
}
