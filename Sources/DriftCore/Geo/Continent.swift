/// The seven continents used for the *Same continent* participant label.
///
/// Countries map to continents with the GeoNames convention (Russia → Europe,
/// Turkey, Georgia, Armenia, Azerbaijan, Kazakhstan → Asia, Egypt → Africa,
/// Cyprus → Europe, Panama → North America); see ``CountryCode/continent``.
public enum Continent: String, Sendable, Codable, CaseIterable {
    case africa = "AF"
    case antarctica = "AN"
    case asia = "AS"
    case europe = "EU"
    case northAmerica = "NA"
    case oceania = "OC"
    case southAmerica = "SA"
}

extension CountryCode {
    /// The continent of this country (GeoNames convention); every ISO 3166-1 code has one.
    public var continent: Continent {
        // `CountryCode` only admits codes from this table, so the lookup cannot miss.
        CountryCode.continent(of: rawValue) ?? .antarctica
    }

    /// Every assigned ISO 3166-1 alpha-2 code (249), sorted.
    public static var all: [CountryCode] {
        continents.keys.sorted().map { CountryCode(trusted: $0) }
    }

    /// The continent of an upper-case code: an assigned one, or `XK` (Kosovo, user-assigned
    /// but in common use, and accepted for `box.country`).
    static func continent(of code: String) -> Continent? {
        continents[code] ?? userAssignedContinents[code]
    }

    /// User-assigned codes in common use, accepted beside the assigned ones.
    static let userAssignedContinents: [String: Continent] = ["XK": .europe]

    /// All 249 ISO 3166-1 alpha-2 codes (2024) and their continent.
    static let continents: [String: Continent] = [
        // africa
        "AO": .africa, "BF": .africa, "BI": .africa, "BJ": .africa, "BW": .africa, "CD": .africa, "CF": .africa, "CG": .africa,
        "CI": .africa, "CM": .africa, "CV": .africa, "DJ": .africa, "DZ": .africa, "EG": .africa, "EH": .africa, "ER": .africa,
        "ET": .africa, "GA": .africa, "GH": .africa, "GM": .africa, "GN": .africa, "GQ": .africa, "GW": .africa, "KE": .africa,
        "KM": .africa, "LR": .africa, "LS": .africa, "LY": .africa, "MA": .africa, "MG": .africa, "ML": .africa, "MR": .africa,
        "MU": .africa, "MW": .africa, "MZ": .africa, "NA": .africa, "NE": .africa, "NG": .africa, "RE": .africa, "RW": .africa,
        "SC": .africa, "SD": .africa, "SH": .africa, "SL": .africa, "SN": .africa, "SO": .africa, "SS": .africa, "ST": .africa,
        "SZ": .africa, "TD": .africa, "TG": .africa, "TN": .africa, "TZ": .africa, "UG": .africa, "YT": .africa, "ZA": .africa,
        "ZM": .africa, "ZW": .africa,
        // antarctica
        "AQ": .antarctica, "BV": .antarctica, "GS": .antarctica, "HM": .antarctica, "TF": .antarctica,
        // asia
        "AE": .asia, "AF": .asia, "AM": .asia, "AZ": .asia, "BD": .asia, "BH": .asia, "BN": .asia, "BT": .asia,
        "CC": .asia, "CN": .asia, "CX": .asia, "GE": .asia, "HK": .asia, "ID": .asia, "IL": .asia, "IN": .asia,
        "IO": .asia, "IQ": .asia, "IR": .asia, "JO": .asia, "JP": .asia, "KG": .asia, "KH": .asia, "KP": .asia,
        "KR": .asia, "KW": .asia, "KZ": .asia, "LA": .asia, "LB": .asia, "LK": .asia, "MM": .asia, "MN": .asia,
        "MO": .asia, "MV": .asia, "MY": .asia, "NP": .asia, "OM": .asia, "PH": .asia, "PK": .asia, "PS": .asia,
        "QA": .asia, "SA": .asia, "SG": .asia, "SY": .asia, "TH": .asia, "TJ": .asia, "TM": .asia, "TL": .asia,
        "TR": .asia, "TW": .asia, "UZ": .asia, "VN": .asia, "YE": .asia,
        // europe
        "AD": .europe, "AL": .europe, "AT": .europe, "AX": .europe, "BA": .europe, "BE": .europe, "BG": .europe, "BY": .europe,
        "CH": .europe, "CY": .europe, "CZ": .europe, "DE": .europe, "DK": .europe, "EE": .europe, "ES": .europe, "FI": .europe,
        "FO": .europe, "FR": .europe, "GB": .europe, "GG": .europe, "GI": .europe, "GR": .europe, "HR": .europe, "HU": .europe,
        "IE": .europe, "IM": .europe, "IS": .europe, "IT": .europe, "JE": .europe, "LI": .europe, "LT": .europe, "LU": .europe,
        "LV": .europe, "MC": .europe, "MD": .europe, "ME": .europe, "MK": .europe, "MT": .europe, "NL": .europe, "NO": .europe,
        "PL": .europe, "PT": .europe, "RO": .europe, "RS": .europe, "RU": .europe, "SE": .europe, "SI": .europe, "SJ": .europe,
        "SK": .europe, "SM": .europe, "UA": .europe, "VA": .europe,
        // northAmerica
        "AG": .northAmerica, "AI": .northAmerica, "AW": .northAmerica, "BB": .northAmerica, "BL": .northAmerica, "BM": .northAmerica, "BQ": .northAmerica, "BS": .northAmerica,
        "BZ": .northAmerica, "CA": .northAmerica, "CR": .northAmerica, "CU": .northAmerica, "CW": .northAmerica, "DM": .northAmerica, "DO": .northAmerica, "GD": .northAmerica,
        "GL": .northAmerica, "GP": .northAmerica, "GT": .northAmerica, "HN": .northAmerica, "HT": .northAmerica, "JM": .northAmerica, "KN": .northAmerica, "KY": .northAmerica,
        "LC": .northAmerica, "MF": .northAmerica, "MQ": .northAmerica, "MS": .northAmerica, "MX": .northAmerica, "NI": .northAmerica, "PA": .northAmerica, "PM": .northAmerica,
        "PR": .northAmerica, "SV": .northAmerica, "SX": .northAmerica, "TC": .northAmerica, "TT": .northAmerica, "US": .northAmerica, "VC": .northAmerica, "VG": .northAmerica,
        "VI": .northAmerica,
        // oceania
        "AS": .oceania, "AU": .oceania, "CK": .oceania, "FJ": .oceania, "FM": .oceania, "GU": .oceania, "KI": .oceania, "MH": .oceania,
        "MP": .oceania, "NC": .oceania, "NF": .oceania, "NR": .oceania, "NU": .oceania, "NZ": .oceania, "PF": .oceania, "PG": .oceania,
        "PN": .oceania, "PW": .oceania, "SB": .oceania, "TK": .oceania, "TO": .oceania, "TV": .oceania, "UM": .oceania, "VU": .oceania,
        "WF": .oceania, "WS": .oceania,
        // southAmerica
        "AR": .southAmerica, "BO": .southAmerica, "BR": .southAmerica, "CL": .southAmerica, "CO": .southAmerica, "EC": .southAmerica, "FK": .southAmerica, "GF": .southAmerica,
        "GY": .southAmerica, "PE": .southAmerica, "PY": .southAmerica, "SR": .southAmerica, "UY": .southAmerica, "VE": .southAmerica,
    ]
}
