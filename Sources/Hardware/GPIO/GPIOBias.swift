/// Internal resistor applied to an input line (`DGPIO_BIAS_*`).
public enum GPIOBias: Int32, Sendable, Hashable, CaseIterable {
    /// Leave the bias as the firmware or device tree set it (`DGPIO_BIAS_AS_IS`).
    case asIs = 0
    /// No pull resistor (`DGPIO_BIAS_DISABLE`).
    case disabled = 1
    /// Pull-up: an open button reads high (`DGPIO_BIAS_PULL_UP`).
    case pullUp = 2
    /// Pull-down: an open button reads low (`DGPIO_BIAS_PULL_DOWN`).
    case pullDown = 3
}
