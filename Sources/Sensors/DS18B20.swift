import Foundation

/// The DS18B20 1-Wire thermometer as the Linux w1-therm driver shows it:
/// `/sys/bus/w1/devices/28-XXXXXXXXXXXX/w1_slave`, two lines of text:
///
/// ```
/// 72 01 4b 46 7f ff 0e 10 57 : crc=57 YES
/// 72 01 4b 46 7f ff 0e 10 57 t=23125
/// ```
///
/// The first line's verdict (`YES`/`NO`) is the kernel's CRC check of the
/// scratchpad; the second line's `t=` is the temperature in millidegrees.
/// Reading the file triggers a conversion and takes about 750 ms, so call
/// ``read(path:)`` off any latency-sensitive loop.
public enum DS18B20 {
    /// Where the w1 bus master lists its devices.
    public static let devicesDirectory = "/sys/bus/w1/devices"
    /// The 1-Wire family code of the DS18B20.
    public static let familyPrefix = "28-"

    /// Parses the text of a `w1_slave` file.
    /// - Throws: ``DS18B20Error``: `.crcMismatch` for `NO`, `.noSensor`,
    ///   `.powerOnReset`, `.outOfRange`, `.malformed` naming the problem.
    public static func parse(_ text: String) throws(DS18B20Error) -> DS18B20Reading {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.count >= 2 else { throw .malformed("expected 2 lines, got \(lines.count)") }
        let crcLine = lines[0], dataLine = lines[1]

        guard let crcRange = crcLine.range(of: "crc=") else { throw .malformed("first line has no crc=") }
        let verdict = crcLine[crcRange.upperBound...].split(separator: " ").last.map(String.init) ?? ""
        let bytes = try scratchpad(String(crcLine[..<crcRange.lowerBound]))
        switch verdict {
        case "YES": break
        case "NO": throw .crcMismatch(line: crcLine)
        default: throw .malformed("CRC verdict \"\(verdict)\" is neither YES nor NO")
        }
        if bytes.allSatisfy({ $0 == 0 }) || bytes.allSatisfy({ $0 == 0xFF }) { throw .noSensor }
        guard crc8(bytes.prefix(8)) == bytes[8] else { throw .crcMismatch(line: crcLine) }

        guard let tRange = dataLine.range(of: "t=") else { throw .malformed("second line has no t=") }
        let value = dataLine[tRange.upperBound...].trimmingCharacters(in: .whitespaces)
        guard let milli = Int(value) else { throw .malformed("t=\(value) is not an integer") }
        // 85 °C with the power-on scratchpad (0x0550, reserved byte 6 = 0x0C) is the reset value.
        if milli == 85_000 && bytes[0] == 0x50 && bytes[1] == 0x05 && bytes[6] == 0x0C { throw .powerOnReset }
        guard (-55_000...125_000).contains(milli) else { throw .outOfRange(milliCelsius: milli) }
        return DS18B20Reading(milliCelsius: milli, scratchpad: bytes)
    }

    /// Reads and parses one device file.
    /// - Throws: ``DS18B20Error/unreadable(path:reason:)`` or any ``parse(_:)`` error.
    public static func read(path: String) throws(DS18B20Error) -> DS18B20Reading {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: "\((error as NSError).localizedDescription)")
        }
        return try parse(text)
    }

    /// The `w1_slave` paths of every DS18B20 under `directory`, sorted by device id;
    /// empty if the directory does not exist (1-Wire not enabled).
    public static func devicePaths(in directory: String = DS18B20.devicesDirectory) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(familyPrefix) }.sorted().map { "\(directory)/\($0)/w1_slave" }
    }

    /// The Dallas/Maxim 1-Wire CRC-8 (polynomial x⁸ + x⁵ + x⁴ + 1, reflected 0x8C).
    public static func crc8<S: Sequence<UInt8>>(_ bytes: S) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            var b = byte
            for _ in 0..<8 {
                let mix = (crc ^ b) & 0x01
                crc >>= 1
                if mix != 0 { crc ^= 0x8C }
                b >>= 1
            }
        }
        return crc
    }

    private static func scratchpad(_ hex: String) throws(DS18B20Error) -> [UInt8] {
        let fields = hex.split(separator: " ").filter { $0 != ":" }
        guard fields.count == 9 else { throw .malformed("expected 9 scratchpad bytes, got \(fields.count)") }
        var bytes: [UInt8] = []
        for field in fields {
            guard let byte = UInt8(field, radix: 16) else { throw .malformed("\"\(field)\" is not a hex byte") }
            bytes.append(byte)
        }
        return bytes
    }
}
