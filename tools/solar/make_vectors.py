#!/usr/bin/env python3
"""Reference vectors for DriftCore's SolarCalculator, computed with Skyfield.

Usage (from this folder):
    python3 -m venv .venv
    .venv/bin/pip install -r requirements.txt
    .venv/bin/python make_vectors.py > solar-vectors.json

Skyfield integrates the JPL DE421 ephemeris (shipped by `skyfield-data`, so no
download), which makes it an independent check of DriftCore's NOAA/Meeus series.
For each place and local date it records, in UTC (ISO 8601, seconds):
sunrise and sunset (sun centre at -0.8333 deg: 34' refraction + 16' semi-diameter),
civil dawn and civil dusk (centre at -6 deg), or the polar case when the sun does
not cross that altitude during the local day ("always_above" / "always_below",
from the altitude at the meridian transit); plus the geometric sun altitude at the
local solar noon and at 09:30 local time. The Swift test (SolarCalculatorTests)
asserts +-1 minute for every event and the same polar classification.
"""
import datetime
import json
import sys
import zoneinfo

import skyfield_data
from skyfield import almanac
from skyfield.api import Loader, wgs84

PLACES = [
    # name, latitude, longitude, IANA zone, local date
    ("Berlin equinox", 52.52, 13.405, "Europe/Berlin", "2024-03-20"),
    ("Berlin midsummer", 52.52, 13.405, "Europe/Berlin", "2024-06-21"),
    ("Berlin midwinter", 52.52, 13.405, "Europe/Berlin", "2024-12-21"),
    ("London DST end", 51.5074, -0.1278, "Europe/London", "2024-10-27"),
    ("New York", 40.7128, -74.006, "America/New_York", "2024-07-04"),
    ("San Francisco", 37.7749, -122.4194, "America/Los_Angeles", "2024-01-15"),
    ("Singapore (tropics)", 1.3521, 103.8198, "Asia/Singapore", "2024-05-01"),
    ("Quito (equator)", -0.1807, -78.4678, "America/Guayaquil", "2024-09-23"),
    ("Nairobi", -1.2921, 36.8219, "Africa/Nairobi", "2024-02-10"),
    ("Mumbai (tropics)", 19.076, 72.8777, "Asia/Kolkata", "2024-04-14"),
    ("Honolulu (tropics)", 21.3069, -157.8583, "Pacific/Honolulu", "2024-08-01"),
    ("Sydney summer", -33.8688, 151.2093, "Australia/Sydney", "2024-12-21"),
    ("Cape Town winter", -33.9249, 18.4241, "Africa/Johannesburg", "2024-06-21"),
    ("Buenos Aires", -34.6037, -58.3816, "America/Argentina/Buenos_Aires", "2024-08-15"),
    ("Ushuaia summer", -54.8019, -68.303, "America/Argentina/Ushuaia", "2024-12-21"),
    ("Auckland DST end", -36.8485, 174.7633, "Pacific/Auckland", "2024-04-07"),
    ("Apia (date line, UTC+13)", -13.8333, -171.7667, "Pacific/Apia", "2024-06-01"),
    ("Kiritimati (UTC+14)", 1.8721, -157.4278, "Pacific/Kiritimati", "2024-11-11"),
    ("Suva (date line)", -18.1248, 178.4501, "Pacific/Fiji", "2024-04-01"),
    ("Adak (date line, UTC-10)", 51.88, -176.6581, "America/Adak", "2024-05-15"),
    ("Chatham Islands (UTC+13:45)", -43.9535, -176.5597, "Pacific/Chatham", "2024-01-10"),
    ("Tokyo", 35.6762, 139.6503, "Asia/Tokyo", "2024-11-05"),
    ("Anchorage", 61.2181, -149.9003, "America/Anchorage", "2024-09-01"),
    ("Reykjavik midsummer", 64.1466, -21.9426, "Atlantic/Reykjavik", "2024-06-21"),
    ("Tromso March", 69.6492, 18.9553, "Europe/Oslo", "2024-03-15"),
    ("Murmansk", 68.9585, 33.0827, "Europe/Moscow", "2024-03-01"),
    ("Tromso polar day", 69.6492, 18.9553, "Europe/Oslo", "2024-06-21"),
    ("Tromso polar night", 69.6492, 18.9553, "Europe/Oslo", "2024-12-21"),
    ("Longyearbyen polar day", 78.2232, 15.6267, "Arctic/Longyearbyen", "2024-05-10"),
    ("Longyearbyen polar night", 78.2232, 15.6267, "Arctic/Longyearbyen", "2024-12-21"),
    ("McMurdo polar day", -77.8419, 166.6863, "Antarctica/McMurdo", "2024-12-21"),
    ("McMurdo polar night", -77.8419, 166.6863, "Antarctica/McMurdo", "2024-06-21"),
]

ALTITUDE = {"sunrise": -0.8333, "sunset": -0.8333, "civil_dawn": -6.0, "civil_dusk": -6.0}
RISING = {"sunrise": True, "sunset": False, "civil_dawn": True, "civil_dusk": False}


def iso(t):
    return t.utc_datetime().strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    load = Loader(skyfield_data.get_skyfield_data_path(), verbose=False)
    ts = load.timescale(builtin=True)
    eph = load("de421.bsp")
    sun, earth = eph["sun"], eph["earth"]
    vectors = []
    for name, lat, lon, zone, day in PLACES:
        tz = zoneinfo.ZoneInfo(zone)
        date = datetime.date.fromisoformat(day)
        start = datetime.datetime.combine(date, datetime.time(0, 0), tz)
        end = datetime.datetime.combine(date + datetime.timedelta(days=1), datetime.time(0, 0), tz)
        t0, t1 = ts.from_datetime(start), ts.from_datetime(end)
        place = wgs84.latlon(lat, lon)
        observer = earth + place

        def altitude(t):
            alt, _, _ = observer.at(t).observe(sun).apparent().altaz()
            return alt.degrees

        transits = almanac.find_transits(observer, sun, t0, t1)
        noon = transits[0] if len(transits) else ts.from_datetime(start + (end - start) / 2)
        entry = {"name": name, "latitude": lat, "longitude": lon, "timeZone": zone, "date": day}
        for key, horizon in ALTITUDE.items():
            finder = almanac.find_risings if RISING[key] else almanac.find_settings
            times, crosses = finder(observer, sun, t0, t1, horizon_degrees=horizon)
            real = [t for t, ok in zip(times, crosses) if ok]
            if real:
                entry[key] = iso(real[0])
            else:
                entry[key] = "always_above" if altitude(noon) > horizon else "always_below"
        morning = ts.from_datetime(datetime.datetime.combine(date, datetime.time(9, 30), tz))
        entry["elevations"] = [
            {"at": iso(t), "degrees": round(float(altitude(t)), 4)} for t in (noon, morning)
        ]
        vectors.append(entry)
    json.dump({"generator": "tools/solar/make_vectors.py", "reference": "skyfield 1.55 + DE421",
               "vectors": vectors}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
