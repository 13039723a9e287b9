import ArgumentParser
import DriftConfig
import DriftDaemon
import Foundation

/// `driftd status`: asks the running daemon through its control socket.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the running daemon's status (through its control socket).")

    @OptionGroup var target: ControlTarget

    func run() throws {
        let path = try ControlSocketLocation.resolve(socket: target.socket, dataDir: target.dataDir, config: target.config)
        let answer: Data
        do {
            answer = try ControlClient.send(ControlRequest(command: "status"), to: path)
        } catch {
            FileHandle.standardError.write(Data("driftd status: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let response = try? decoder.decode(ControlResponse<DaemonStatus>.self, from: answer), let status = response.result else {
            FileHandle.standardError.write(Data("driftd status: unexpected answer: \(String(decoding: answer, as: UTF8.self))\n".utf8))
            throw ExitCode.failure
        }
        if target.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(status), as: UTF8.self))
        } else {
            print(status.renderText(), terminator: "")
        }
    }
}

/// Where a command finds the daemon's control socket.
enum ControlSocketLocation {
    /// `--socket`, else `<--data-dir>/driftd.sock`, else the socket the config file (or the
    /// embedded default) names.
    static func resolve(socket: String?, dataDir: String?, config: String?) throws -> String {
        if let socket { return socket }
        if let dataDir { return (dataDir.hasSuffix("/") ? dataDir : dataDir + "/") + "driftd.sock" }
        if let config {
            do {
                return try ConfigLoader.load(path: config).configuration.controlSocketPath
            } catch {
                FileHandle.standardError.write(Data("cannot read \(config):\n\(error)\n".utf8))
                throw ExitCode.failure
            }
        }
        return ConfigLoader.loadEmbeddedDefault().configuration.controlSocketPath
    }
}
