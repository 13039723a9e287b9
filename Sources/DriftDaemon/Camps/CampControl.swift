import DriftMesh

/// The camp commands on the control socket.
enum CampControl {
    /// `camp.list` (the directory and recent messages), `camp.announce` (send the announce
    /// now) and `camp.send kind=chat|request|event|emergency|ping text=… [resource=…]
    /// [emergency=…] [title=… start=… minutes=…]`.
    static func register(_ commands: inout ControlCommands, service: CampService, wake: @escaping @Sendable () -> Void) {
        commands.register("camp.list") { _ in
            do {
                return try await service.listing()
            } catch {
                throw ControlError(code: "store_failed", message: "\(error)")
            }
        }
        commands.register("camp.announce") { _ in
            do {
                try await service.announce()
            } catch {
                throw ControlError(code: "not_sent", message: "\(error)")
            }
            wake()
            return ["sent": "announce"]
        }
        commands.register("camp.send") { arguments in
            let message: CampMessage
            do {
                message = try service.message(kind: arguments["kind"] ?? "chat", arguments: arguments)
            } catch {
                throw ControlError(code: "bad_arguments", message: "\(error)")
            }
            do {
                try await service.send(message)
            } catch {
                throw ControlError(code: "not_sent", message: "\(error)")
            }
            wake()
            return ["sent": message.kind.description]
        }
    }
}
