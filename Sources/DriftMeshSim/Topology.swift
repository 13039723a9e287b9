import DriftMesh
import Foundation

/// Where the simulated boxes stand, and what each hears from each (dBm).
///
/// Placement follows Meshtasticator's `find_random_position`: uniform in a square
/// area, at least `minimumDistance` apart, and (after the first) within range of at least
/// one box already placed, so the mesh is connected on average links.
public struct Topology: Sendable {
    public var positions: [(x: Double, y: Double)]
    /// `rssi[s][r]`: what `r` receives from `s`, dBm, offsets included.
    public var rssi: [[Double]]

    public init(nodes: Int, areaM: Double, minimumDistanceM: Double, channel: ChannelModel, rng: inout MeshRandom) {
        var positions: [(x: Double, y: Double)] = []
        for _ in 0..<nodes {
            var tries = 0
            while true {
                tries += 1
                let x = rng.unit() * areaM
                let y = rng.unit() * areaM
                var tooClose = false
                var inRange = positions.isEmpty
                for p in positions {
                    let d = ((p.x - x) * (p.x - x) + (p.y - y) * (p.y - y)).squareRoot()
                    if d < minimumDistanceM { tooClose = true; break }
                    if channel.meanRssi(distance: d) >= channel.sensitivityDbm { inRange = true }
                }
                if (!tooClose && inRange) || tries > 100_000 {
                    positions.append((x, y))
                    break
                }
            }
        }
        self.init(positions: positions, channel: channel, rng: &rng)
    }

    /// Boxes at `positions` (metres), each direction's link offset drawn from `rng`.
    public init(positions: [(x: Double, y: Double)], channel: ChannelModel, rng: inout MeshRandom) {
        let nodes = positions.count
        var rssi = [[Double]](repeating: [Double](repeating: -.infinity, count: nodes), count: nodes)
        for s in 0..<nodes {
            for r in 0..<nodes where r != s {
                let d = ((positions[s].x - positions[r].x) * (positions[s].x - positions[r].x)
                    + (positions[s].y - positions[r].y) * (positions[s].y - positions[r].y)).squareRoot()
                rssi[s][r] = channel.meanRssi(distance: d) + channel.linkOffsetSigmaDb * Topology.gaussian(&rng)
            }
        }
        self.positions = positions
        self.rssi = rssi
    }

    /// Boxes reachable from `origin` over links usable in both directions (what
    /// reconciliation, an exchange, can use).
    public func connected(from origin: Int, sensitivity: Double) -> Set<Int> {
        var seen: Set<Int> = [origin]
        var stack = [origin]
        while let n = stack.popLast() {
            for m in 0..<rssi.count where m != n && !seen.contains(m) {
                if rssi[n][m] >= sensitivity && rssi[m][n] >= sensitivity {
                    seen.insert(m)
                    stack.append(m)
                }
            }
        }
        return seen
    }

    /// Boxes reachable from `origin` over links as they are, one way each (where `origin`'s
    /// flood can get).
    public func downstream(of origin: Int, sensitivity: Double) -> Set<Int> {
        var seen: Set<Int> = [origin]
        var stack = [origin]
        while let n = stack.popLast() {
            for m in 0..<rssi.count where m != n && !seen.contains(m) && rssi[n][m] >= sensitivity {
                seen.insert(m)
                stack.append(m)
            }
        }
        return seen
    }

    static func gaussian(_ rng: inout MeshRandom) -> Double {
        let u1 = max(rng.unit(), 1e-12)
        let u2 = rng.unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
