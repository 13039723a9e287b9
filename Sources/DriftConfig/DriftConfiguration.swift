/// The validated configuration of one Drift Box: `driftd.toml` merged over its board profile.
///
/// Obtain one from ``ConfigLoader``; every value has been checked (types, ranges,
/// cross-field rules), so users of this type need no further validation. Each
/// TOML table is a nested struct; TOML `snake_case` keys are `camelCase`
/// properties, and `*_s` / `*_ms` keys are `Duration`s.
public struct DriftConfiguration: Sendable, Equatable {
    public var box: Box
    public var storage: Storage
    public var http: HTTP
    public var accessPoint: AccessPoint
    public var bottles: Bottles
    public var control: Control
    public var daemon: Daemon
    public var features: Features
    public var metrics: Metrics
    public var mesh: Mesh
    public var camp: Camp
    public var power: Power
    public var radio: Radio
    public var gps: GPS
    public var sim: Sim
    public var gpio: GPIO
    public var buttons: Buttons
    public var leds: LEDs
    public var rain: Rain
    public var i2c: I2C
    public var oneWire: OneWire
    public var e22: E22
    public var meshtastic: Meshtastic
    public var mqtt: MQTT

    /// The control socket: `control.socket`, or `<data_dir>/driftd.sock` when that is empty.
    public var controlSocketPath: String {
        if !control.socket.isEmpty { return control.socket }
        return storage.dataDir.hasSuffix("/") ? storage.dataDir + "driftd.sock" : storage.dataDir + "/driftd.sock"
    }

    /// Reads every section in documentation order; issues accumulate in `decoder`.
    init(reading decoder: ConfigDecoder) {
        box = Box(reading: decoder.section("box"))
        storage = Storage(reading: decoder.section("storage"))
        http = HTTP(reading: decoder.section("http"))
        accessPoint = AccessPoint(reading: decoder.section("access_point"))
        bottles = Bottles(reading: decoder.section("bottles"))
        control = Control(reading: decoder.section("control"))
        daemon = Daemon(reading: decoder.section("daemon"))
        features = Features(reading: decoder.section("features"))
        metrics = Metrics(reading: decoder.section("metrics"))
        mesh = Mesh(reading: decoder.section("mesh"))
        camp = Camp(reading: decoder.section("camp"))
        power = Power(reading: decoder.section("power"))
        radio = Radio(reading: decoder.section("radio"))
        gps = GPS(reading: decoder.section("gps"))
        sim = Sim(reading: decoder.section("sim"))
        gpio = GPIO(reading: decoder.section("gpio"))
        buttons = Buttons(reading: decoder.section("buttons"))
        leds = LEDs(reading: decoder.section("leds"))
        rain = Rain(reading: decoder.section("rain"))
        i2c = I2C(reading: decoder.section("i2c"))
        oneWire = OneWire(reading: decoder.section("onewire"))
        e22 = E22(reading: decoder.section("e22"))
        meshtastic = Meshtastic(reading: decoder.section("meshtastic"))
        mqtt = MQTT(reading: decoder.section("mqtt"))
    }

    /// Known tables and their keys, in documentation order.
    static let schema: [(table: String, keys: [String])] = {
        let decoder = ConfigDecoder(root: [:], origins: ConfigOrigins(), primaryFile: "")
        _ = DriftConfiguration(reading: decoder)
        return decoder.schema
    }()

    /// Every known key as `table.key`, in documentation order.
    public static var knownKeys: [String] {
        schema.flatMap { entry in entry.keys.map { "\(entry.table).\($0)" } }
    }
}
