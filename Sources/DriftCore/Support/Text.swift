import Foundation

/// Small formatting helpers for human-readable condition reasons (English, box-local).
enum Text {
    /// "45 s", "12 min", "2 h 5 min", "3 d 4 h"; negative values are treated as zero.
    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(max(0, seconds).rounded())
        if total < 60 { return "\(total) s" }
        let minutes = total / 60
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 24 {
            let rest = minutes % 60
            return rest == 0 ? "\(hours) h" : "\(hours) h \(rest) min"
        }
        let days = hours / 24
        let rest = hours % 24
        return rest == 0 ? "\(days) d" : "\(days) d \(rest) h"
    }

    /// A number with at most `decimals` fractional digits, trailing zeros removed: 17.25 → "17.3".
    static func number(_ value: Double, decimals: Int = 1) -> String {
        let scale = pow(10, Double(decimals))
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(format: "%.\(decimals)f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// "1.2 km" or "850 m".
    static func distance(_ meters: Double) -> String {
        meters < 1000 ? "\(Int(meters.rounded())) m" : "\(number(meters / 1000)) km"
    }

    /// "HH:MM" of `minuteOfDay` (0..<1440).
    static func clock(minuteOfDay: Int) -> String {
        String(format: "%02d:%02d", minuteOfDay / 60, minuteOfDay % 60)
    }

    /// "HH:MM" of `date` in `zone`.
    static func clock(_ date: Date, in zone: TimeZone) -> String {
        let calendar = Calendar.gregorian(in: zone)
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return clock(minuteOfDay: (parts.hour ?? 0) * 60 + (parts.minute ?? 0))
    }

    /// "2024-06-01 18:00" of `date` in `zone`.
    static func dateTime(_ date: Date, in zone: TimeZone) -> String {
        "\(LocalDate(date, in: zone)) \(clock(date, in: zone))"
    }
}
