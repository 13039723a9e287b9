import DriftConfig
import DriftMesh
import DriftStore
import Foundation
import Logging

/// First boot: makes the box's identity on the data partition once (`driftd identity init`,
/// run by `driftbox-firstboot.service`).
///
/// Uses the daemon's own start-up paths (``BoxSetup`` for the data directory, the migrated
/// store, the box id and secret; ``MeshKeyFile`` through `MeshSetup` for the mesh key), then
/// writes the marker ``markerName`` last. Idempotent: a second run finds everything, prints the
/// same id and changes nothing.
public enum IdentityInit {
    /// The marker written last; `driftbox-firstboot.service` runs only while it is absent.
    public static let markerName = ".identity"

    /// What one run found or made.
    public struct Report: Sendable, Equatable, Codable {
        public var boxID: String
        /// The box's mesh node id (`!1a2b3c4d`), from `<data_dir>/mesh.key`.
        public var meshNode: String
        public var dataDirectory: String
        /// True when this run generated anything (id, secret, mesh key or marker).
        public var created: Bool
    }

    /// Why the identity could not be made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Makes (or finds) the identity in `dataDirectory` for `config`.
    public static func run(config: DriftConfiguration, dataDirectory: String, logger: Logger) throws(Failure) -> Report {
        let setup: BoxSetup
        do throws(DaemonStartupError) {
            setup = try BoxSetup.open(dataDirectory: dataDirectory, configuredID: config.box.id)
        } catch {
            throw Failure(description: error.description)
        }
        let keyExisted = FileManager.default.fileExists(atPath: dataDirectory + "/" + MeshKeyFile.name)
        let keyPair: BoxKeyPair
        do throws(MeshSetup.Problem) {
            keyPair = try MeshSetup.keyPair(dataDirectory: dataDirectory, logger: logger)
        } catch {
            throw Failure(description: error.description)
        }
        try? setup.database.checkpointAndTruncateWAL()
        let marker = "box_id=\(setup.boxID)\nmesh_node=\(keyPair.nodeID)\n"
        let markerPath = dataDirectory + "/" + markerName
        let markerCurrent = FileManager.default.contents(atPath: markerPath) == Data(marker.utf8)
        if !markerCurrent {
            do throws(AtomicTextFile.Failure) {
                try AtomicTextFile.write(marker, to: markerPath, mode: 0o600)
            } catch {
                throw Failure(description: error.description)
            }
        }
        return Report(boxID: setup.boxID, meshNode: "\(keyPair.nodeID)", dataDirectory: dataDirectory,
                      created: setup.created || !keyExisted || !markerCurrent)
    }
}
