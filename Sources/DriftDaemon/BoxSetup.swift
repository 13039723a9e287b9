import DriftCore
import DriftStore
import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The box's data directory, store and identity: what the daemon opens on every start
/// and what the first-boot unit (`driftd identity init`) makes once — one code path for both.
public struct BoxSetup: Sendable {
    /// The data directory: 0700, every file in it 0600 (``DriftSystem/OwnerOnlyFiles``).
    public let dataDirectory: String
    /// The store, opened and migrated.
    public let database: DriftDatabase
    /// The box id: `box.id` from the config, or the one generated once and kept in the store.
    public let boxID: String
    /// The box secret (share codes, tokens), generated once and kept in the store.
    public let secret: BoxSecret
    /// Whether this call generated the stored box id or secret (a first start).
    public let created: Bool

    /// The database file inside the data directory.
    public static let databaseName = "drift.sqlite"

    /// Creates the data directory, opens and migrates the store, and reads the box id
    /// (unless `configuredID` is non-empty) and secret, generating them when absent.
    ///
    /// The directory holds the box secret, bottles, chats and media, so it is the owner's
    /// only by construction: it is made (or made again) 0700 and group and other bits are
    /// taken off everything already in it (an older version's files, a tester's `mkdir`);
    /// the store and media files are created with owner-only modes whatever the umask
    /// (`driftd run` and `driftd identity init` also set the process umask to 077).
    public static func open(dataDirectory: String, configuredID: String) throws(DaemonStartupError) -> BoxSetup {
        do throws(SystemError) {
            try OwnerOnlyFiles.makeDirectory(dataDirectory)
        } catch {
            throw DaemonStartupError(description: "cannot create the data directory \(dataDirectory): \(error)")
        }
        OwnerOnlyFiles.tighten(dataDirectory)
        guard access(dataDirectory, W_OK) == 0 else {
            throw DaemonStartupError(description: "the data directory \(dataDirectory) is not writable by this user")
        }
        let database: DriftDatabase
        do {
            database = try DriftDatabase.open(path: dataDirectory + "/" + databaseName)
        } catch {
            throw DaemonStartupError(description: "cannot open the store in \(dataDirectory): \(error)")
        }
        let boxState = BoxStateStore(database: database)
        var boxID = configuredID
        do {
            let storedID = try boxState.value(for: "box.id")
            let storedSecret = try boxState.value(for: "box.secret")
            if boxID.isEmpty {
                boxID = try boxState.valueOrInsert(for: "box.id") { BoxIdentity.generate() }
            }
            let secretText = try boxState.valueOrInsert(for: "box.secret") {
                Data(BoxSecret.generate().rawBytes).base64EncodedString()
            }
            let secret = try BoxSecret(bytes: Array(Data(base64Encoded: secretText) ?? Data()))
            _ = try BoxID(boxID)
            let created = (configuredID.isEmpty && storedID == nil) || storedSecret == nil
            return BoxSetup(dataDirectory: dataDirectory, database: database, boxID: boxID, secret: secret, created: created)
        } catch {
            throw DaemonStartupError(description: "box identity unusable (box id \(boxID.isEmpty ? "not yet made" : boxID)): \(error)")
        }
    }
}
