/// The factory trimming coefficients of one BME280, read from its NVM
/// (registers 0x88…0xA1 and 0xE1…0xE7).
///
/// Names follow the datasheet (`dig_T1` → ``t1``). H4 and H5 are 12-bit signed
/// values packed around a shared nibble at 0xE5: H4 = 0xE4[7:0] << 4 | 0xE5[3:0],
/// H5 = 0xE6[7:0] << 4 | 0xE5[7:4] (0xE4 and 0xE6 are signed).
public struct BME280Calibration: Sendable, Equatable {
    public var t1: UInt16, t2: Int16, t3: Int16
    public var p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16
    public var p6: Int16, p7: Int16, p8: Int16, p9: Int16
    public var h1: UInt8, h2: Int16, h3: UInt8, h4: Int16, h5: Int16, h6: Int8

    /// First calibration block start (`dig_T1` LSB).
    public static let block1Register: UInt8 = 0x88
    /// Bytes in the first block: 0x88…0xA1.
    public static let block1Count = 26
    /// Second calibration block start (`dig_H2` LSB).
    public static let block2Register: UInt8 = 0xE1
    /// Bytes in the second block: 0xE1…0xE7.
    public static let block2Count = 7

    public init(
        t1: UInt16, t2: Int16, t3: Int16,
        p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16, p6: Int16, p7: Int16, p8: Int16, p9: Int16,
        h1: UInt8, h2: Int16, h3: UInt8, h4: Int16, h5: Int16, h6: Int8
    ) {
        (self.t1, self.t2, self.t3) = (t1, t2, t3)
        (self.p1, self.p2, self.p3, self.p4, self.p5) = (p1, p2, p3, p4, p5)
        (self.p6, self.p7, self.p8, self.p9) = (p6, p7, p8, p9)
        (self.h1, self.h2, self.h3, self.h4, self.h5, self.h6) = (h1, h2, h3, h4, h5, h6)
    }

    /// Decodes the two register blocks as read from the chip.
    /// - Throws: ``BME280Error/invalidCalibration(_:)`` if a block has the wrong
    ///   length, or the coefficients are all zero or all 0xFF (a bus returning
    ///   nothing, or an unprogrammed part) or `dig_T1`/`dig_P1` is zero (they divide).
    public init(block1: [UInt8], block2: [UInt8]) throws(BME280Error) {
        guard block1.count == Self.block1Count, block2.count == Self.block2Count else {
            throw .invalidCalibration("expected \(Self.block1Count) + \(Self.block2Count) bytes, got \(block1.count) + \(block2.count)")
        }
        let all = block1 + block2
        if all.allSatisfy({ $0 == 0 }) || all.allSatisfy({ $0 == 0xFF }) {
            throw .invalidCalibration("calibration registers all 0x\(all[0] == 0 ? "00" : "FF")")
        }
        func u16(_ i: Int) -> UInt16 { UInt16(block1[i]) | UInt16(block1[i + 1]) << 8 }
        func s16(_ i: Int) -> Int16 { Int16(bitPattern: u16(i)) }
        t1 = u16(0); t2 = s16(2); t3 = s16(4)
        p1 = u16(6); p2 = s16(8); p3 = s16(10); p4 = s16(12); p5 = s16(14)
        p6 = s16(16); p7 = s16(18); p8 = s16(20); p9 = s16(22)
        // block1[24] is 0xA0, reserved.
        h1 = block1[25]
        h2 = Int16(bitPattern: UInt16(block2[0]) | UInt16(block2[1]) << 8)
        h3 = block2[2]
        let e4 = Int16(Int8(bitPattern: block2[3]))
        let e5 = Int16(block2[4])
        let e6 = Int16(Int8(bitPattern: block2[5]))
        h4 = e4 * 16 | (e5 & 0x0F)
        h5 = e6 * 16 | (e5 >> 4)
        h6 = Int8(bitPattern: block2[6])
        guard t1 != 0, p1 != 0 else {
            throw .invalidCalibration("dig_T1 = \(t1), dig_P1 = \(p1): must not be zero")
        }
    }

    /// The two register blocks that decode to this calibration (for simulated chips and tests).
    public var registerBlocks: (block1: [UInt8], block2: [UInt8]) {
        func bytes(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func bytes(_ value: Int16) -> [UInt8] { bytes(UInt16(bitPattern: value)) }
        var block1: [UInt8] = bytes(t1) + bytes(t2) + bytes(t3) + bytes(p1)
        block1 += bytes(p2) + bytes(p3) + bytes(p4) + bytes(p5) + bytes(p6) + bytes(p7) + bytes(p8) + bytes(p9)
        block1 += [0x00, h1]
        let h4Bits = UInt16(bitPattern: h4) & 0x0FFF
        let h5Bits = UInt16(bitPattern: h5) & 0x0FFF
        let block2: [UInt8] = bytes(h2) + [
            h3,
            UInt8(h4Bits >> 4),
            UInt8(h4Bits & 0x0F) | UInt8(h5Bits & 0x0F) << 4,
            UInt8(h5Bits >> 4),
            UInt8(bitPattern: h6),
        ]
        return (block1, block2)
    }
}
