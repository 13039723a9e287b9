import ArgumentParser
import Foundation

/// `driftd mesh send|inbox|status|boxes|traces`: the running daemon's mesh, through its control socket.
struct MeshSend: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a text message over the mesh (to every box, or to one with --to).")
    @Option(name: .long, help: "The text (UTF-8; long texts travel in up to 16 frames).") var text: String
    @Option(name: .long, help: "A box's mesh address (!1a2b3c4d); without it, every box.") var to: String?
    @OptionGroup var target: ControlTarget
    func run() throws {
        var arguments = ["text": text]
        if let to { arguments["to"] = to }
        try target.send("mesh.send", arguments) { result in
            let receipt = result as? [String: Any] ?? [:]
            return "stored \(receipt["id"] as? String ?? "?") in the outbox (\(receipt["frames"] as? Int ?? 0) frame(s)) for \(to ?? "every box")"
        }
    }
}

struct MeshInboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "inbox", abstract: "Messages the mesh delivered to this box, oldest first.")
    @OptionGroup var target: ControlTarget
    func run() throws {
        try target.send("mesh.inbox", [:]) { result in
            let messages = (result as? [String: Any])?["messages"] as? [[String: Any]] ?? []
            if messages.isEmpty { return "no messages" }
            return messages.map { entry in
                let from = entry["origin"] as? String ?? "?"
                let hops = entry["hops"] as? Int ?? 0
                let body = entry["text"] as? String ?? "(\(entry["bytes"] as? Int ?? 0) bytes on port \(entry["port"] as? Int ?? 0))"
                return "\(from) · \(hops) hop(s) · \(body)"
            }.joined(separator: "\n")
        }
    }
}

struct MeshStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "This box's mesh address, neighbours, counters, outbox and airtime.")
    @OptionGroup var target: ControlTarget
    func run() throws {
        try target.send("mesh.status", [:]) { result in
            let status = result as? [String: Any] ?? [:]
            if status["running"] as? Bool == false {
                return "the mesh is configured but not running: \(status["problem"] as? String ?? "unknown problem") (see driftd status)"
            }
            var lines = ["node \(status["node"] as? String ?? "?")"]
            let neighbours = status["neighbours"] as? [[String: Any]] ?? []
            lines.append(neighbours.isEmpty ? "neighbours: none heard yet" : "neighbours:")
            for n in neighbours {
                lines.append(String(format: "  %@  RSSI %.0f dBm  SNR %.1f dB  heard %.0f s ago",
                                    n["id"] as? String ?? "?", n["rssi"] as? Double ?? 0, n["snr"] as? Double ?? 0,
                                    n["lastHeardSecondsAgo"] as? Double ?? 0))
            }
            if let outbox = status["outbox"] as? [String: Any] {
                lines.append("outbox: \(outbox["queued"] ?? 0) queued, \(outbox["sent"] ?? 0) sent, \(outbox["delivered"] ?? 0) delivered, \(outbox["failed"] ?? 0) failed")
            }
            lines.append("held: \(status["heldPackets"] ?? 0) packets, seen-set: \(status["seen"] ?? 0)")
            if let dropped = status["radioMalformed"] as? Int, dropped > 0 {
                lines.append("radio: \(dropped) receptions dropped (did not decode)")
            }
            if let deaf = status["radioDeaf"] as? Int, deaf > 0 {
                lines.append("radio: \(deaf) frames not heard while transmitting (half duplex)")
            }
            if let collided = status["radioCollided"] as? Int, collided > 0 {
                lines.append("radio: \(collided) frames lost to another on the air at the same time (collisions)")
            }
            if let late = status["radioCarriersReadLate"] as? Int, late > 0 {
                lines.append("radio: \(late) transmissions began over a frame whose carrier was read late (the loopback radio's lag)")
            }
            if let split = status["radioSplitBursts"] as? Int, split > 0 {
                lines.append("radio: \(split) bursts held several packets run together, split (the reader was late)")
            }
            if status["radioIdleProbe"] as? String == "off" {
                lines.append("radio: the module is not probed while the channel is quiet (it does not answer the ambient-noise read; "
                             + "`driftd e22 program` turns the read on): a module that stops answering goes unnoticed")
            }
            if let waits = status["radioBusyWaits"] as? Int, waits > 0 {
                lines.append("radio: \(waits) transmissions held back while another was on the air (listen before talk)")
            }
            if let waits = status["radioQuietWaits"] as? Int, waits > 0 {
                lines.append("radio: \(waits) transmissions ready as the channel turned quiet, drawn a back-off first")
            }
            if let waits = status["radioAnswerWaits"] as? Int, waits > 0 {
                lines.append("radio: \(waits) transmissions held for the answer of a box out of range to a frame just heard")
            }
            if let boxes = status["topologyBoxes"] as? Int {
                var line = "topology plan: on, \(boxes) boxes' neighbour lists known"
                if let lacking = status["topologyListsLacking"] as? Int, lacking > 0 {
                    line += ", \(lacking) lacking"
                    if let across = status["topologyListsAcrossOneWayLinks"] as? Int, across > 0 {
                        line += " (\(across) named only across one-way links)"
                    }
                }
                lines.append(line)
            }
            lines.append(String(format: "airtime: %.2f %% of the last hour (own), channel busy %.2f %%",
                                status["airtimeUsedPercent"] as? Double ?? 0, status["channelUtilisationPercent"] as? Double ?? 0))
            if let held = status["budgetHeldSeconds"] as? Double, held > 0 {
                lines.append(String(format: "airtime budget: frames waited %.0f s for it since start (the duty cycle)", held))
            }
            if let counters = status["counters"] as? [String: Any] {
                var interesting = counters.compactMap { key, value in (value as? Int).flatMap { $0 == 0 ? nil : "\(key) \($0)" } }
                let malformed = counters["malformed"] as? [String: Int] ?? [:]
                interesting += malformed.map { "malformed \($0.key) \($0.value)" }
                lines.append("counters: " + (interesting.isEmpty ? "nothing yet" : interesting.sorted().joined(separator: ", ")))
            }
            return lines.joined(separator: "\n")
        }
    }
}

struct MeshBoxesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "boxes", abstract: "The other boxes this box heard of (the directory bottles are sent by).")
    @OptionGroup var target: ControlTarget
    func run() throws {
        try target.send("mesh.boxes", [:]) { result in
            let answer = result as? [String: Any] ?? [:]
            let boxes = answer["boxes"] as? [[String: Any]] ?? []
            let others = boxes.filter { $0["node"] as? String != answer["me"] as? String }
            if others.isEmpty { return "no other box heard yet" }
            return others.map { box in
                "\(box["node"] as? String ?? "?")  \(box["name"] as? String ?? "?")  activity \(box["activity"] as? Int ?? 0)"
            }.joined(separator: "\n")
        }
    }
}

struct MeshTracesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "traces", abstract: "What this box holds of one bottle: hosted, sent record, links, remote chat lines, tombstone.")
    @Option(name: .long, help: "The bottle's id (UUID).") var bottle: String
    @OptionGroup var target: ControlTarget
    func run() throws {
        try target.send("mesh.traces", ["bottle": bottle]) { result in
            let t = result as? [String: Any] ?? [:]
            let links = (t["links"] as? [String] ?? []).joined(separator: ", ")
            let notices = (t["notices"] as? [String] ?? []).joined(separator: ", ")
            return "hosted \(t["hosted"] as? Bool ?? false), sent \(t["sent"] as? Bool ?? false), links [\(links)], remote lines \(t["remoteLines"] as? Int ?? 0), notices [\(notices)], erased \(t["erased"] as? Bool ?? false)"
        }
    }
}
