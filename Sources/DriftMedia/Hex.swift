/// Upper-case hexadecimal, for error messages naming IDs and markers.
func hex(_ value: some BinaryInteger) -> String { String(value, radix: 16, uppercase: true) }
