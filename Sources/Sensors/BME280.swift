import Hardware
import Synchronization

/// A Bosch BME280 temperature, pressure and humidity sensor on I2C, used in
/// forced mode (one measurement on request, asleep in between).
///
/// Every step is a short synchronous register transfer that never sleeps, so
/// the caller owns the waiting (and its clock):
///
/// ```swift
/// let sensor = BME280(device: try LinuxI2CDevice(bus: "/dev/i2c-1", address: 0x76))
/// try await sensor.start(clock: clock)         // id check, reset, calibration, config
/// let reading = try await sensor.measure(clock: clock)
/// ```
///
/// or step by step: ``checkChipID()``, ``softReset()``, wait ``startupTime``,
/// ``readCalibration()``, ``configure()``; then ``triggerMeasurement()``, wait
/// ``BME280Settings/maximumMeasurementTime``, ``readMeasurement()``.
/// Errors are ``BME280Error``: an absent chip is `.noDevice`, another chip `.wrongChip(id)`.
public final class BME280: Sendable {
    /// The BME280's id in register 0xD0 (a BMP280 answers 0x56…0x58).
    public static let chipID: UInt8 = 0x60
    /// The value that soft-resets the chip when written to 0xE0.
    public static let resetCommand: UInt8 = 0xB6
    /// Start-up time after power-on or soft reset (datasheet table 1: 2 ms).
    public static let startupTime = Duration.milliseconds(2)

    /// Register addresses (datasheet section 5.3).
    public enum Register {
        public static let chipID: UInt8 = 0xD0
        public static let reset: UInt8 = 0xE0
        public static let ctrlHum: UInt8 = 0xF2
        public static let status: UInt8 = 0xF3
        public static let ctrlMeas: UInt8 = 0xF4
        public static let config: UInt8 = 0xF5
    }

    /// `status` bit 3: a conversion is running.
    static let statusMeasuring: UInt8 = 0x08
    /// `status` bit 0: NVM data are being copied to the image registers.
    static let statusImUpdate: UInt8 = 0x01

    public let device: any I2CDevice
    public let settings: BME280Settings
    private let calibrationState = Mutex<BME280Calibration?>(nil)

    public init(device: any I2CDevice, settings: BME280Settings = BME280Settings()) {
        self.device = device
        self.settings = settings
    }

    /// The calibration read by ``readCalibration()``, if any.
    public var calibration: BME280Calibration? {
        calibrationState.withLock { $0 }
    }

    // MARK: - Steps

    /// Reads register 0xD0.
    /// - Throws: `.noDevice` if nothing answers, `.wrongChip(id)` unless it is 0x60.
    public func checkChipID() throws(BME280Error) {
        let id = try io { () throws(I2CError) in try device.readByte(register: Register.chipID) }
        guard id == Self.chipID else { throw .wrongChip(id: id) }
    }

    /// Writes 0xB6 to 0xE0: the chip restarts (wait ``startupTime``) and forgets its configuration.
    public func softReset() throws(BME280Error) {
        try io { () throws(I2CError) in try device.writeByte(register: Register.reset, value: Self.resetCommand) }
        calibrationState.withLock { $0 = nil }
    }

    /// Reads and decodes both calibration blocks, and keeps them for ``readMeasurement()``.
    /// - Throws: `.busy` while the NVM copy after reset is still running, `.invalidCalibration`.
    @discardableResult
    public func readCalibration() throws(BME280Error) -> BME280Calibration {
        let status = try io { () throws(I2CError) in try device.readByte(register: Register.status) }
        guard status & Self.statusImUpdate == 0 else { throw .busy("copying calibration NVM after reset") }
        let block1 = try io { () throws(I2CError) in
            try device.readBlock(register: BME280Calibration.block1Register, count: BME280Calibration.block1Count)
        }
        let block2 = try io { () throws(I2CError) in
            try device.readBlock(register: BME280Calibration.block2Register, count: BME280Calibration.block2Count)
        }
        let calibration = try BME280Calibration(block1: block1, block2: block2)
        calibrationState.withLock { $0 = calibration }
        return calibration
    }

    /// Writes `ctrl_hum`, `config`, then `ctrl_meas` in sleep mode (`ctrl_hum`
    /// only takes effect after a `ctrl_meas` write, so the order matters).
    public func configure() throws(BME280Error) {
        try io { () throws(I2CError) in
            try device.writeByte(register: Register.ctrlHum, value: settings.ctrlHum)
            try device.writeByte(register: Register.config, value: settings.config)
            try device.writeByte(register: Register.ctrlMeas, value: settings.ctrlMeas(mode: 0))
        }
    }

    /// Starts one forced-mode measurement; read it after ``BME280Settings/maximumMeasurementTime``.
    public func triggerMeasurement() throws(BME280Error) {
        try io { () throws(I2CError) in
            try device.writeByte(register: Register.ctrlHum, value: settings.ctrlHum)
            try device.writeByte(register: Register.ctrlMeas, value: settings.ctrlMeas(mode: 1))
        }
    }

    /// Reads the data registers in one burst and compensates them. With
    /// humidity oversampling `.skipped` the reading's humidity is meaningless.
    /// - Throws: `.notStarted` without calibration, `.busy` while still measuring,
    ///   `.invalidData` for a skipped (0x80000) temperature or pressure,
    ///   `.implausible` outside the operating range, or a bus error.
    public func readMeasurement() throws(BME280Error) -> BME280Reading {
        guard let calibration else { throw .notStarted }
        let status = try io { () throws(I2CError) in try device.readByte(register: Register.status) }
        guard status & Self.statusMeasuring == 0 else { throw .busy("measurement still running") }
        let bytes = try io { () throws(I2CError) in
            try device.readBlock(register: BME280RawSample.dataRegister, count: BME280RawSample.dataCount)
        }
        let sample = try BME280RawSample(dataRegisters: bytes)
        if sample.temperature == BME280RawSample.skipped20Bit || sample.pressure == BME280RawSample.skipped20Bit {
            throw .invalidData("no measurement in the data registers (0x80000): skipped or never triggered")
        }
        if settings.humidity != .skipped && sample.humidity == BME280RawSample.skipped16Bit {
            throw .invalidData("no humidity measurement in the data registers (0x8000)")
        }
        let reading = BME280Compensation.reading(sample, calibration)
        if let reason = reading.implausibility { throw .implausible(reading, reason: reason) }
        return reading
    }

    // MARK: - Sequences with a clock

    /// Chip id check, soft reset, calibration read (retrying while the NVM
    /// copy runs, up to 5 times ``startupTime`` apart) and configuration.
    /// - Throws: ``BME280Error``, or `CancellationError` from the clock.
    public func start(clock: any Clock<Duration>) async throws {
        try checkChipID()
        try softReset()
        var attempts = 0
        while true {
            try await clock.sleep(for: Self.startupTime)
            do {
                try readCalibration()
                break
            } catch {
                // Not `catch .busy(let what)`: Swift 6.2's SIL verifier rejects that pattern
                // in this async function ("Found ownership error", arm64 cross build).
                guard case .busy(let what) = error else { throw error }
                attempts += 1
                if attempts >= 5 { throw BME280Error.busy(what) }
            }
        }
        try configure()
    }

    /// One forced measurement: trigger, wait the maximum measurement time, read
    /// (once more after another wait if the chip is still busy).
    /// - Throws: ``BME280Error``, or `CancellationError` from the clock.
    public func measure(clock: any Clock<Duration>) async throws -> BME280Reading {
        try triggerMeasurement()
        try await clock.sleep(for: settings.maximumMeasurementTime)
        do {
            return try readMeasurement()
        } catch {
            guard case .busy = error else { throw error }
            try await clock.sleep(for: settings.maximumMeasurementTime)
            return try readMeasurement()
        }
    }

    // MARK: - Plumbing

    private func io<T>(_ body: () throws(I2CError) -> T) throws(BME280Error) -> T {
        do {
            return try body()
        } catch {
            throw BME280Error(error)
        }
    }
}
