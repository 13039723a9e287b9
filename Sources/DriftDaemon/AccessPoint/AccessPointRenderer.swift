import DriftConfig
import DriftSystem
import Foundation

/// Writes (or clears) the access point's rendered files in a directory: what
/// `driftd ap render` and `driftbox-ap.service` do at boot.
public struct AccessPointRenderer: Sendable {
    /// What a render did.
    public enum Outcome: Sendable, Equatable {
        /// The files were written (their paths).
        case rendered([String])
        /// `access_point.enabled = false`: nothing written, stale files removed.
        case disabled
        /// The beacon power profile runs no access point: nothing written, stale files removed.
        case beaconProfile
        /// The interface does not exist on this machine: nothing written, stale files removed.
        case noInterface(String)
    }

    /// Why the files could not be written.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// The directory the files go to (`/run/driftbox/ap` on the box).
    public var directory: String
    /// Where network interfaces are listed (`/sys/class/net`); tests point it elsewhere.
    public var interfacesDirectory: String

    public init(directory: String, interfacesDirectory: String = "/sys/class/net") {
        self.directory = directory
        self.interfacesDirectory = interfacesDirectory
    }

    /// Renders `config` into ``directory``. With `requireInterface`, a missing interface
    /// is not an error: nothing is rendered, so the units conditioned on the files skip.
    public func render(config: DriftConfiguration, source: String, requireInterface: Bool) throws(Failure) -> Outcome {
        guard config.accessPoint.enabled else {
            try clear()
            return .disabled
        }
        guard config.powerProfile != .beacon else {
            try clear()
            return .beaconProfile
        }
        if requireInterface, !FileManager.default.fileExists(atPath: interfacesDirectory + "/" + config.accessPoint.interface) {
            try clear()
            return .noInterface(config.accessPoint.interface)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o750])
        } catch {
            throw Failure(path: directory, reason: error.localizedDescription)
        }
        var written: [String] = []
        for (name, text) in AccessPointFiles(config: config, source: source).files {
            let path = directory + "/" + name
            do throws(AtomicTextFile.Failure) {
                try AtomicTextFile.write(text, to: path, mode: 0o640)
            } catch {
                throw Failure(path: error.path, reason: error.reason)
            }
            written.append(path)
        }
        return .rendered(written)
    }

    /// Removes previously rendered files (absent ones are fine).
    public func clear() throws(Failure) {
        for name in [AccessPointFiles.hostapdName, AccessPointFiles.dnsmasqName, AccessPointFiles.networkName] {
            let path = directory + "/" + name
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw Failure(path: path, reason: error.localizedDescription)
            }
        }
    }
}
