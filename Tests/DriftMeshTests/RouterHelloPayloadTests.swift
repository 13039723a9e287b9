import DriftMesh
import Testing

@Suite struct HelloPayloadTests {
    @Test func roundTrip() throws {
        let key = (0..<32).map { UInt8($0) }
        for count in [0, 1, 5, HelloPayload.maxNeighbours] {
            let payload = HelloPayload(publicKey: key, neighbours: (0..<count).map { .init(id: NodeID(UInt32($0) &* 0x1357_9BDF), bucket: UInt8($0 % 4)) })
            let bytes = payload.encoded()
            #expect(bytes.count == 34 + 5 * count)
            #expect(try HelloPayload(decoding: bytes) == payload)
        }
        #expect(HelloPayload(publicKey: key, neighbours: []).encoded().count <= 190)
        // Version 2 leaves the key out: 32 bytes fewer.
        for count in [0, 3, HelloPayload.maxNeighbours] {
            let keyless = HelloPayload(publicKey: nil, neighbours: (0..<count).map { .init(id: NodeID(UInt32($0) + 7), bucket: 3) })
            let bytes = keyless.encoded()
            #expect(bytes.first == 2 && bytes.count == 2 + 5 * count)
            #expect(try HelloPayload(decoding: bytes) == keyless)
        }
        #expect(HelloPayload(publicKey: key, neighbours: Array(repeating: .init(id: NodeID(1), bucket: 1), count: 40)).neighbours.count == HelloPayload.maxNeighbours)
    }

    @Test("the hello period for a sub-band's duty cycle: 300 s, stretched to 9 s ÷ the duty cycle where that is longer, at most a day")
    func helloPeriodByDutyCycle() {
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: nil) == .seconds(300))
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: 0.1) == .seconds(300))
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: 0.03) == .seconds(300))
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: 0.01) == .seconds(900))
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: 0.001) == .seconds(9_000))
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: 0.000_01) == .seconds(86_400))
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: 0) == .seconds(300))
        #expect(MeshRouterConfiguration.helloPeriod(dutyCycle: .leastNonzeroMagnitude) == .seconds(86_400))
    }

    @Test func hostileBytesAreTypedErrors() {
        let good = HelloPayload(publicKey: [UInt8](repeating: 1, count: 32), neighbours: [.init(id: NodeID(5), bucket: 2)]).encoded()
        #expect(throws: HelloPayload.DecodingError.empty) { try HelloPayload(decoding: [UInt8]()) }
        #expect(throws: HelloPayload.DecodingError.unsupportedVersion(9)) { try HelloPayload(decoding: [9] + good.dropFirst()) }
        #expect(throws: HelloPayload.DecodingError.truncated(expected: 39, actual: 38)) { try HelloPayload(decoding: good.dropLast()) }
        #expect(throws: HelloPayload.DecodingError.trailingBytes(1)) { try HelloPayload(decoding: good + [0]) }
        var many = good
        many[33] = 31
        #expect(throws: HelloPayload.DecodingError.tooManyNeighbours(31)) { try HelloPayload(decoding: many) }
        var bucket = good
        bucket[38] = 4
        #expect(throws: HelloPayload.DecodingError.badBucket(4)) { try HelloPayload(decoding: bucket) }
        let keyless = HelloPayload(publicKey: nil, neighbours: [.init(id: NodeID(5), bucket: 2)]).encoded()
        #expect(throws: HelloPayload.DecodingError.truncated(expected: 7, actual: 6)) { try HelloPayload(decoding: keyless.dropLast()) }
        #expect(throws: HelloPayload.DecodingError.truncated(expected: 2, actual: 1)) { try HelloPayload(decoding: [2]) }
        #expect(throws: HelloPayload.DecodingError.trailingBytes(32)) { try HelloPayload(decoding: keyless + [UInt8](repeating: 0, count: 32)) }
        var keylessBucket = keyless
        keylessBucket[6] = 7
        #expect(throws: HelloPayload.DecodingError.badBucket(7)) { try HelloPayload(decoding: keylessBucket) }
        var rng = MeshRandom(seed: 99)
        for _ in 0..<2000 {
            let bytes = (0..<rng.int(in: 0...200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            _ = try? HelloPayload(decoding: bytes)
        }
    }
}
