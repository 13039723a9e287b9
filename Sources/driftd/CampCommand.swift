import ArgumentParser
import Foundation

/// `driftd ctl camp list|announce|send`: the running daemon's camp beacons.
struct CampCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camp", abstract: "Camp beacons: list the camps heard, announce this camp, send camp messages.",
        subcommands: [CampList.self, CampAnnounce.self, CampSend.self])
}

struct CampList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Camps heard (most recent first) and recent camp messages.")
    @OptionGroup var target: ControlTarget
    func run() throws {
        try target.send("camp.list", [:]) { result in
            let listing = result as? [String: Any] ?? [:]
            let camps = listing["camps"] as? [[String: Any]] ?? []
            var lines = [camps.isEmpty ? "no camps heard" : "\(camps.count) camp(s):"]
            for camp in camps {
                var line = "  \(camp["name"] as? String ?? "?") (\(camp["node"] as? String ?? "?")), \(camp["members"] as? Int ?? 0) people"
                if let distance = camp["distanceMeters"] as? Double { line += String(format: ", %.0f m away", distance) }
                if let note = camp["note"] as? String, !note.isEmpty { line += " — \(note)" }
                lines.append(line)
            }
            for message in listing["messages"] as? [[String: Any]] ?? [] {
                let kind = message["kind"] as? String ?? "?"
                let detail = message["detail"] as? String ?? ""
                lines.append("  \(kind == "emergency" ? "EMERGENCY" : kind)\(detail.isEmpty ? "" : " (\(detail))") from \(message["camp"] as? String ?? "?"): \(message["text"] as? String ?? "")")
            }
            return lines.joined(separator: "\n")
        }
    }
}

struct CampAnnounce: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "announce", abstract: "Send this camp's announce now.")
    @OptionGroup var target: ControlTarget
    func run() throws {
        try target.send("camp.announce", [:]) { _ in "announce queued" }
    }
}

struct CampSend: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send a camp message: chat, request, event, emergency or ping.")
    @Argument(help: "chat, request, event, emergency or ping.") var kind: String
    @Option(name: .long, help: "The text (at most 160 UTF-8 bytes).") var text = ""
    @Option(name: .long, help: "Requests: water, medical, power, tools, food or other.") var resource: String?
    @Option(name: .long, help: "Emergencies: medical, fire, missing-person, weather, security or other.") var emergency: String?
    @Option(name: .long, help: "Events: the title (at most 48 bytes).") var title: String?
    @Option(name: .long, help: "Events: minutes from now until it starts.") var start: Int?
    @Option(name: .long, help: "Events: duration in minutes.") var minutes: Int?
    @OptionGroup var target: ControlTarget
    func run() throws {
        var arguments = ["kind": kind, "text": text]
        if let resource { arguments["resource"] = resource }
        if let emergency { arguments["emergency"] = emergency }
        if let title { arguments["title"] = title }
        if let start { arguments["start"] = "\(start)" }
        if let minutes { arguments["minutes"] = "\(minutes)" }
        try target.send("camp.send", arguments) { _ in "\(kind) queued" }
    }
}
