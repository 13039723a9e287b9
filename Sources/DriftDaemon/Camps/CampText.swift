import DriftMesh

/// One plain text line for a camp message, as people with stock Meshtastic apps see it
/// when ``CampService`` publishes camp traffic on a Meshtastic text channel
/// (`camp.meshtastic_text`). Pings have no line.
public enum CampText {
    public static func line(for message: CampMessage, camp: String) -> String? {
        let who = camp.isEmpty ? "camp" : camp
        switch message {
        case .ping:
            return nil
        case .announce(let announce):
            var line = "[camp] \(announce.name): \(announce.members) people"
            if let position = announce.position { line += " at \(position.latitude),\(position.longitude)" }
            if !announce.note.isEmpty { line += " — \(announce.note)" }
            return line
        case .chat(let chat):
            return "[\(chat.camp.isEmpty ? who : chat.camp)] \(chat.text)"
        case .request(let request):
            return "[\(who)] NEEDS \(request.resource.description.uppercased())" + (request.text.isEmpty ? "" : ": \(request.text)")
        case .event(let event):
            return "[\(who)] EVENT \(event.title)" + (event.text.isEmpty ? "" : ": \(event.text)")
        case .emergency(let emergency):
            var line = "[\(who)] EMERGENCY (\(emergency.emergency.description)): \(emergency.text)"
            if let position = emergency.position { line += " at \(position.latitude),\(position.longitude)" }
            return line
        }
    }
}
