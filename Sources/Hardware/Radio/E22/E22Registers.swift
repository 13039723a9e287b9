/// The E22-xxxT22S configuration registers 00H–08H, decoded.
///
/// | Addr | Name  | Bits |
/// |------|-------|------|
/// | 00H  | ADDH  | address high byte |
/// | 01H  | ADDL  | address low byte |
/// | 02H  | NETID | network id |
/// | 03H  | REG0  | 7–5 UART baud, 4–3 parity, 2–0 air data rate |
/// | 04H  | REG1  | 7–6 sub-packet 240/128/64/32, 5 ambient-noise RSSI, 1–0 TX power 22/17/13/10 dBm |
/// | 05H  | REG2  | channel CH |
/// | 06H  | REG3  | 7 packet RSSI byte, 6 fixed-point, 5 relay, 4 LBT, 3 WOR transmitter, 2–0 WOR cycle |
/// | 07H  | CRYPT_H | key high byte (write-only, reads 0) |
/// | 08H  | CRYPT_L | key low byte (write-only, reads 0) |
///
/// Decoding never fails: every byte pattern is some configuration (reserved bits are kept
/// in ``reserved1`` so a value re-encodes to the same bytes).
public struct E22Registers: Sendable, Equatable {
    /// UART baud rates, REG0 bits 7–5 in order.
    public static let baudRates = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200]
    /// Sub-packet sizes, REG1 bits 7–6 in order.
    public static let subPacketSizes = [240, 128, 64, 32]
    /// TX powers, REG1 bits 1–0 in order, dBm.
    public static let txPowers = [22, 17, 13, 10]
    /// Number of registers (00H–08H).
    public static let count = 9
    /// Number of registers that read back (00H–06H; the key reads 0).
    public static let readableCount = 7
    /// Register names by address, for errors and logs.
    public static let names = ["ADDH (00H)", "ADDL (01H)", "NETID (02H)", "REG0 (03H)", "REG1 (04H)", "REG2 (05H)", "REG3 (06H)", "CRYPT_H (07H)", "CRYPT_L (08H)"]

    /// UART parity, REG0 bits 4–3 (`11` reads as 8N1 too).
    public enum Parity: UInt8, Sendable, Equatable {
        case none8N1 = 0, odd8O1 = 1, even8E1 = 2, none8N1Alias = 3
    }

    public var address: UInt16 = 0
    public var netID: UInt8 = 0
    /// Index into ``baudRates`` (0–7); 3 = 9600.
    public var baudCode: UInt8 = 3
    public var parity: Parity = .none8N1
    public var airRate: E22AirRate = .kbps2_4
    /// Index into ``subPacketSizes`` (0–3).
    public var subPacketCode: UInt8 = 0
    public var ambientNoiseEnabled = false
    /// REG1 bits 4–2 (reserved), kept as read.
    public var reserved1: UInt8 = 0
    /// Index into ``txPowers`` (0–3).
    public var txPowerCode: UInt8 = 0
    public var channel: UInt8 = 0
    public var packetRSSIEnabled = false
    public var fixedPoint = false
    public var relay = false
    public var listenBeforeTalk = false
    public var worTransmitter = false
    /// WOR period (code + 1) × 500 ms, 0–7.
    public var worCycle: UInt8 = 3
    public var cryptKey: UInt16 = 0

    public init() {}

    /// The UART baud rate REG0 selects.
    public var baudRate: Int {
        get { Self.baudRates[Int(baudCode & 7)] }
        set { baudCode = UInt8(Self.baudRates.firstIndex(of: newValue) ?? 3) }
    }

    /// The sub-packet size REG1 selects, bytes.
    public var subPacketBytes: Int {
        get { Self.subPacketSizes[Int(subPacketCode & 3)] }
        set { subPacketCode = UInt8(Self.subPacketSizes.firstIndex(of: newValue) ?? 0) }
    }

    /// The TX power REG1 selects, dBm.
    public var txPowerDBm: Int {
        get { Self.txPowers[Int(txPowerCode & 3)] }
        set { txPowerCode = UInt8(Self.txPowers.firstIndex(of: newValue) ?? 0) }
    }

    /// The nearest TX power the module has to `dBm` (ties go to the lower power).
    public static func nearestTxPower(to dBm: Int) -> Int {
        txPowers.sorted().min { abs($0 - dBm) < abs($1 - dBm) } ?? 22
    }

    /// Registers 00H–08H as bytes.
    public var bytes: [UInt8] {
        let reg0: UInt8 = (baudCode & 7) << 5 | (parity.rawValue & 3) << 3 | airRate.rawValue & 7
        var reg1: UInt8 = (subPacketCode & 3) << 6 | (reserved1 & 7) << 2 | txPowerCode & 3
        if ambientNoiseEnabled { reg1 |= 0x20 }
        var reg3: UInt8 = worCycle & 7
        if packetRSSIEnabled { reg3 |= 0x80 }
        if fixedPoint { reg3 |= 0x40 }
        if relay { reg3 |= 0x20 }
        if listenBeforeTalk { reg3 |= 0x10 }
        if worTransmitter { reg3 |= 0x08 }
        return [UInt8(address >> 8), UInt8(address & 0xFF), netID, reg0, reg1, channel, reg3, UInt8(cryptKey >> 8), UInt8(cryptKey & 0xFF)]
    }

    /// Decodes registers from `startAddress` on; registers not covered keep their defaults.
    /// Bytes beyond 08H are ignored. Never fails.
    public init(bytes: [UInt8], startAddress: Int = 0) {
        var all = E22Registers().bytes
        for (index, byte) in bytes.enumerated() {
            let address = startAddress + index
            guard address >= 0, address < Self.count else { continue }
            all[address] = byte
        }
        address = UInt16(all[0]) << 8 | UInt16(all[1])
        netID = all[2]
        baudCode = all[3] >> 5
        parity = Parity(rawValue: (all[3] >> 3) & 3) ?? .none8N1
        airRate = E22AirRate(rawValue: all[3] & 7) ?? .kbps2_4
        subPacketCode = all[4] >> 6
        ambientNoiseEnabled = all[4] & 0x20 != 0
        reserved1 = (all[4] >> 2) & 7
        txPowerCode = all[4] & 3
        channel = all[5]
        packetRSSIEnabled = all[6] & 0x80 != 0
        fixedPoint = all[6] & 0x40 != 0
        relay = all[6] & 0x20 != 0
        listenBeforeTalk = all[6] & 0x10 != 0
        worTransmitter = all[6] & 0x08 != 0
        worCycle = all[6] & 7
        cryptKey = UInt16(all[7]) << 8 | UInt16(all[8])
    }

    /// RSSI register value → dBm: `-(256 - value)`.
    public static func dBm(rssiByte value: UInt8) -> Double {
        -Double(256 - Int(value))
    }
}
