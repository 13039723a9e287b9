import DriftCore
import Foundation

/// Which ambient inputs the unopened bottles' conditions read, so that an input nobody reads
/// starts no evaluation pass: the GPS reports once a second, and a box whose bottles have no
/// position condition re-evaluated every bottle each time (most of an idle box's wake-ups).
///
/// Position and distance conditions read every fix (freshness and position); sun conditions
/// read only where the box is, which a fix moves by metres (sunrise shifts by seconds per
/// kilometre), so for them a fix counts only when the first position appears or it moves
/// more than ``solarMoveMetres``. Weather conditions read every reading. The clock's
/// synchronisation is read by every time condition and expiry: it always counts.
struct AmbientNeeds: Sendable, Equatable {
    /// A position or distance-from-origin condition needs the GPS.
    var position = false
    /// A sun condition needs the box's position.
    var solar = false
    /// A weather condition needs the sensors.
    var weather = false

    /// How far the box must move before sun conditions are judged again.
    static let solarMoveMetres = 1_000.0

    /// Adds what `bottle`'s conditions read (`box`: this box; distance from origin is always
    /// met at the box a bottle was dropped at).
    mutating func add(_ bottle: Bottle, box: BoxID?) {
        for entry in bottle.conditions {
            switch entry.condition {
            case .boxPosition: position = true
            case .distanceFromOrigin: if box == nil || bottle.origin.boxID != box { position = true }
            case .solar: solar = true
            case .weather: weather = true
            case .password, .presence, .timeOfDay, .daysOfWeek, .dateRange, .delay: break
            }
        }
    }

    /// Whether `input` may change an evaluation. `solarJudged`: where the sun was reckoned at
    /// the last pass; `solarNow`: where it would be reckoned with the input applied.
    func isRead(by input: AmbientInput, solarJudged: GeoPoint?, solarNow: GeoPoint?) -> Bool {
        switch input {
        case .gps:
            if position { return true }
            guard solar else { return false }
            switch (solarJudged, solarNow) {
            case (nil, nil): return false
            case (nil, _?), (_?, nil): return true
            case (let before?, let after?): return before.distance(to: after) > Self.solarMoveMetres
            }
        case .reading, .rainGaugeStarted, .rainTip, .weather:
            return weather
        case .clockSynchronized:
            return true
        case .buttonPressed, .keepAliveButtonPressed:
            return false
        }
    }
}
