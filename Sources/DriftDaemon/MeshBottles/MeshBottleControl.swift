import DriftCore
import DriftMesh
import DriftStore
import Foundation

/// Control-socket commands of the mesh's bottle traffic (`driftd ctl`, tests).
enum MeshBottleControl {
    /// What this box holds of one bottle: everything erase-everywhere must remove.
    struct Traces: Codable, Sendable, Equatable {
        var bottle: String
        /// The bottle itself is hosted here.
        var hosted: Bool
        var sent: Bool
        var links: [String]
        var remoteLines: Int
        var erased: Bool
        /// Notices the host sent here about it (creator and watcher events), oldest first.
        var notices: [String]
    }

    struct Boxes: Codable, Sendable {
        var me: String
        var boxes: [Entry]

        struct Entry: Codable, Sendable {
            var node: String
            var name: String
            var activity: Int
            var lastSeen: Date
        }
    }

    static func register(_ commands: inout ControlCommands, service: MeshBottleService) {
        commands.register("mesh.boxes") { _ in
            Boxes(me: "\(service.node.me)", boxes: (try await service.withStore { try $0.boxes() }).map {
                .init(node: "\($0.node)", name: $0.name, activity: $0.activity, lastSeen: $0.lastSeen)
            })
        }
        commands.register("mesh.traces") { arguments in
            guard let raw = arguments["bottle"], let id = BottleID(raw) else {
                throw ControlError(code: "bad_arguments", message: "bottle=<uuid> is required")
            }
            return Traces(bottle: id.description, hosted: (try await service.processor.withStore { try $0.contains(id) }),
                          sent: (try await service.withStore { try $0.sentBottle(id) }) != nil,
                          links: (try await service.withStore { try $0.links(of: id) }).map { "\($0.role.rawValue):\($0.node)" },
                          remoteLines: (try await service.withStore { try $0.remoteLines(of: id) }).count, erased: (try await service.withStore { try $0.isErased(id) }),
                          notices: service.notices(of: id).map { "\($0)" })
        }
        commands.register("mesh.announce") { _ in
            await service.announce()
            return ["announced": true]
        }
    }
}
