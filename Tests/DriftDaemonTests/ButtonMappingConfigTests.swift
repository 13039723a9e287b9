import DriftConfig
import DriftDaemon
import DriftSystem
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@Suite("Button mapping from the board's [buttons] section")
struct ButtonMappingConfigTests {
    func buttons(_ extra: String) throws -> DriftConfiguration.Buttons {
        let text = DriftConfiguration.embeddedDefaultText.replacingOccurrences(of: "long_press_ms = 2000\n", with: "long_press_ms = 2000\n\(extra)\n")
        return try ConfigLoader(systemBoardDirectories: []).load(text: text, fileName: "test.toml", baseDirectory: nil).configuration.buttons
    }

    @Test("no keys: the standard mapping")
    func standardByDefault() throws {
        #expect(ButtonMapping(config: try buttons("")) == .standard)
    }

    @Test("an override changes what a gesture does; none unmaps; presets")
    func overrides() throws {
        let mapping = ButtonMapping(config: try buttons("presence_long = \"selftest\"\nboth_long = \"none\"\nkeep_alive_double = \"status-code\""))
        #expect(mapping.action(for: .longPress("presence")) == .runSelftest)
        #expect(mapping.action(for: .combo(["keep-alive", "presence"])) == nil)
        #expect(mapping.action(for: .doublePress("keep-alive")) == .showStatusCode)
        #expect(mapping.action(for: .press("presence")) == .presenceProof, "the rest stays standard")

        let single = ButtonMapping(config: try buttons("mapping = \"single\""))
        #expect(single == .single)
        #expect(single.action(for: .doublePress("presence")) == .keepAlive)
        let none = ButtonMapping(config: try buttons("mapping = \"none\"\npresence_press = \"led-test\""))
        #expect(none.actions == [.press("presence"): .ledTest])
    }

    @Test("every config action name is a daemon action (plus none)")
    func namesMatch() {
        let names = ButtonActionName.allCases.filter { $0 != .none }.map(\.rawValue).sorted()
        #expect(names == ButtonAction.allCases.map(\.rawValue).sorted())
        for (_, gesture) in DriftConfiguration.Buttons.gestureKeys {
            #expect(ButtonGesture(gesture) != nil, "\(gesture)")
        }
    }

    @Test("the behaviour service acts on the configured mapping: presence long press runs the selftest")
    func serviceUsesMapping() async throws {
        let (events, buttons) = AsyncStream<ButtonEvent>.makeStream()
        let (_, ambient) = AsyncStream<AmbientInput>.makeStream()
        let calls = Mutex<[String]>([])
        let service = ButtonBehaviourService(
            events: events, ambient: ambient, mapping: ButtonMapping(config: try self.buttons("presence_long = \"selftest\"")),
            settings: .init(longPress: .milliseconds(300)),
            effects: .init(showStatusCode: { _ in calls.withLock { $0.append("status-code") } },
                           runSelftest: { _ in calls.withLock { $0.append("selftest") } }),
            logger: Logger(label: "test")
        )
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let t = MonotonicTime.now()
            buttons.yield(ButtonEvent(button: "presence", pressed: true, at: t))
            for _ in 0..<500 where calls.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
            buttons.yield(ButtonEvent(button: "presence", pressed: false, at: MonotonicTime.now()))
            #expect(calls.withLock { $0 } == ["selftest"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
