/// The regulatory region whose transmit rules apply. Raw values are the configuration's
/// `radio.region` spellings (`EU868`, `US915`, …): DriftConfig's `RadioRegion` is this type,
/// extended with each region's band and default channel.
public enum AirtimeRegion: String, Sendable, Hashable, CaseIterable {
    case eu868 = "EU868"
    case eu433 = "EU433"
    case us915 = "US915"
    case au915 = "AU915"
    case as923 = "AS923"
    case kr920 = "KR920"
    case in865 = "IN865"
    case ru864 = "RU864"
    case cn470 = "CN470"
}
