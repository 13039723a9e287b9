import DriftDaemon
import HTTPTypes
import Testing

@Suite("Visitor server: a taken port is a fault, not the end of the daemon")
struct ListenFaultTests {
    @Test("the server reports the http fault while its port is taken, then listens once it is free")
    func takenPort() async throws {
        var options = APIHarness.Options()
        options.portTakenAtStart = true
        try await APIHarness.run(options) { harness in
            #expect(harness.sawListenFault, "no http fault while the port was taken")
            #expect(harness.health.evaluate().faults["http"] == nil, "the fault stays after the server listens")
            let reply = try await harness.client.send(.post, "/api/v1/visitors")
            #expect(reply.code == 201)
        }
    }
}
