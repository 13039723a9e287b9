#!/usr/bin/env python3
"""Independent reference for the BME280 integer compensation (datasheet rev 1.x,
section 4.2.3 "Compensation formulas" / 8.2 "Compensation formulas in 32/64 bit
fixed point").

Written from the datasheet's C listings, in Python with explicit C semantics:
int32/int64 wrap-around, arithmetic right shift, and division truncating toward
zero. It packs a calibration set and raw ADC values into the register layout
(0x88..0xA1, 0xE1..0xE7, 0xF7..0xFE), decodes them again from the bytes (so the
H4/H5 nibble packing is exercised), compensates, and prints a Swift fixture
file for Tests/SensorsTests.

    python3 tools/bme280/bme280_reference.py > Tests/SensorsTests/BME280Dumps.swift
"""

import sys


def wrap32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def wrap64(x):
    x &= 0xFFFFFFFFFFFFFFFF
    return x - (1 << 64) if x & 0x8000000000000000 else x


def cdiv(a, b):
    """C integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def s8(b):
    return b - 256 if b >= 128 else b


def s16(lo, hi):
    v = lo | (hi << 8)
    return v - 65536 if v >= 32768 else v


def u16(lo, hi):
    return lo | (hi << 8)


# ---------------------------------------------------------------- packing

def pack(cal, adc_t, adc_p, adc_h):
    """Returns {register: byte} for the calibration and data registers."""
    regs = {}

    def put16(reg, v):
        v &= 0xFFFF
        regs[reg] = v & 0xFF
        regs[reg + 1] = v >> 8

    put16(0x88, cal["T1"]); put16(0x8A, cal["T2"]); put16(0x8C, cal["T3"])
    for i, name in enumerate(["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9"]):
        put16(0x8E + 2 * i, cal[name])
    regs[0xA0] = 0x00  # reserved
    regs[0xA1] = cal["H1"] & 0xFF
    put16(0xE1, cal["H2"])
    regs[0xE3] = cal["H3"] & 0xFF
    h4 = cal["H4"] & 0xFFF
    h5 = cal["H5"] & 0xFFF
    regs[0xE4] = h4 >> 4                      # H4 [11:4]
    regs[0xE5] = (h4 & 0x0F) | ((h5 & 0x0F) << 4)  # H4 [3:0] | H5 [3:0] << 4
    regs[0xE6] = h5 >> 4                      # H5 [11:4]
    regs[0xE7] = cal["H6"] & 0xFF
    regs[0xF7] = (adc_p >> 12) & 0xFF
    regs[0xF8] = (adc_p >> 4) & 0xFF
    regs[0xF9] = (adc_p & 0x0F) << 4
    regs[0xFA] = (adc_t >> 12) & 0xFF
    regs[0xFB] = (adc_t >> 4) & 0xFF
    regs[0xFC] = (adc_t & 0x0F) << 4
    regs[0xFD] = (adc_h >> 8) & 0xFF
    regs[0xFE] = adc_h & 0xFF
    return regs


def unpack(regs):
    r = lambda a: regs.get(a, 0)
    cal = {
        "T1": u16(r(0x88), r(0x89)), "T2": s16(r(0x8A), r(0x8B)), "T3": s16(r(0x8C), r(0x8D)),
        "P1": u16(r(0x8E), r(0x8F)),
    }
    for i, name in enumerate(["P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9"]):
        cal[name] = s16(r(0x90 + 2 * i), r(0x91 + 2 * i))
    cal["H1"] = r(0xA1)
    cal["H2"] = s16(r(0xE1), r(0xE2))
    cal["H3"] = r(0xE3)
    cal["H4"] = (s8(r(0xE4)) * 16) | (r(0xE5) & 0x0F)
    cal["H5"] = (s8(r(0xE6)) * 16) | (r(0xE5) >> 4)
    cal["H6"] = s8(r(0xE7))
    adc_p = (r(0xF7) << 12) | (r(0xF8) << 4) | (r(0xF9) >> 4)
    adc_t = (r(0xFA) << 12) | (r(0xFB) << 4) | (r(0xFC) >> 4)
    adc_h = (r(0xFD) << 8) | r(0xFE)
    return cal, adc_t, adc_p, adc_h


# ---------------------------------------------------------------- compensation

def compensate_t(c, adc_t):
    var1 = wrap32((wrap32((adc_t >> 3) - (c["T1"] << 1)) * c["T2"])) >> 11
    d = wrap32((adc_t >> 4) - c["T1"])
    var2 = wrap32(wrap32((wrap32(d * d) >> 12) * c["T3"])) >> 14
    t_fine = wrap32(var1 + var2)
    t = wrap32(t_fine * 5 + 128) >> 8
    return t, t_fine


def compensate_p(c, adc_p, t_fine):
    var1 = wrap64(t_fine - 128000)
    var2 = wrap64(var1 * var1 * c["P6"])
    var2 = wrap64(var2 + wrap64(var1 * c["P5"] << 17))
    var2 = wrap64(var2 + (c["P4"] << 35))
    var1 = wrap64((wrap64(var1 * var1 * c["P3"]) >> 8) + wrap64(var1 * c["P2"] << 12))
    var1 = wrap64(wrap64(((1 << 47) + var1) * c["P1"]) >> 33)
    if var1 == 0:
        return 0
    p = 1048576 - adc_p
    p = cdiv(wrap64(wrap64((p << 31) - var2) * 3125), var1)
    var1 = wrap64(c["P9"] * (p >> 13) * (p >> 13)) >> 25
    var2 = wrap64(c["P8"] * p) >> 19
    p = wrap64((wrap64(p + var1 + var2) >> 8) + (c["P7"] << 4))
    return p & 0xFFFFFFFF  # Q24.8 Pa, returned as uint32


def compensate_h(c, adc_h, t_fine):
    v = wrap32(t_fine - 76800)
    a = wrap32(wrap32(wrap32((adc_h << 14) - (c["H4"] << 20) - wrap32(c["H5"] * v)) + 16384) >> 15)
    b = wrap32(v * c["H6"]) >> 10
    b2 = wrap32((wrap32(v * c["H3"]) >> 11) + 32768)
    b = wrap32(b * b2) >> 10
    b = wrap32(wrap32((b + 2097152) * c["H2"]) + 8192) >> 14
    v = wrap32(a * b)
    v = wrap32(v - (wrap32((wrap32((v >> 15) * (v >> 15)) >> 7) * c["H1"]) >> 4))
    v = 0 if v < 0 else v
    v = 419430400 if v > 419430400 else v
    return v >> 12  # Q22.10 %RH


# ---------------------------------------------------------------- cross-check

def floating(c, adc_t, adc_p, adc_h):
    """The datasheet's double-precision formulas, to cross-check the integer ones."""
    v1 = (adc_t / 16384.0 - c["T1"] / 1024.0) * c["T2"]
    v2 = ((adc_t / 131072.0 - c["T1"] / 8192.0) ** 2) * c["T3"]
    t_fine = v1 + v2
    v1 = t_fine / 2.0 - 64000.0
    v2 = v1 * v1 * c["P6"] / 32768.0
    v2 = v2 + v1 * c["P5"] * 2.0
    v2 = v2 / 4.0 + c["P4"] * 65536.0
    v1 = (c["P3"] * v1 * v1 / 524288.0 + c["P2"] * v1) / 524288.0
    v1 = (1.0 + v1 / 32768.0) * c["P1"]
    p = 1048576.0 - adc_p
    p = (p - v2 / 4096.0) * 6250.0 / v1
    p = p + (c["P9"] * p * p / 2147483648.0 + p * c["P8"] / 32768.0 + c["P7"]) / 16.0
    h = t_fine - 76800.0
    h = (adc_h - (c["H4"] * 64.0 + c["H5"] / 16384.0 * h)) * (
        c["H2"] / 65536.0 * (1.0 + c["H6"] / 67108864.0 * h * (1.0 + c["H3"] / 67108864.0 * h)))
    h = h * (1.0 - c["H1"] * h / 524288.0)
    return t_fine / 5120.0, p, min(max(h, 0.0), 100.0)


# ---------------------------------------------------------------- fixtures

# The BMP280 datasheet's worked example (section 3.12): same T and P formulas
# as the BME280. Humidity coefficients are a typical BME280 set.
DATASHEET = dict(T1=27504, T2=26435, T3=-1000, P1=36477, P2=-10685, P3=3024,
                 P4=2855, P5=140, P6=-7, P7=15500, P8=-14600, P9=6000,
                 H1=75, H2=362, H3=0, H4=313, H5=50, H6=30)

# Calibration sets of the kind real parts carry (values vary per chip).
CHIP_A = dict(T1=28485, T2=26735, T3=50, P1=36738, P2=-10635, P3=3024,
              P4=6980, P5=-4, P6=-7, P7=9900, P8=-10230, P9=4285,
              H1=75, H2=352, H3=0, H4=339, H5=0, H6=30)
CHIP_B = dict(T1=27963, T2=26498, T3=50, P1=37589, P2=-10643, P3=3024,
              P4=8265, P5=-115, P6=-7, P7=9900, P8=-10230, P9=4285,
              H1=75, H2=364, H3=0, H4=301, H5=50, H6=30)
# Negative H4 and H5 exercise the signed nibble packing.
CHIP_C = dict(T1=28012, T2=26590, T3=-1000, P1=36900, P2=-10700, P3=3024,
              P4=4500, P5=-40, P6=-7, P7=15500, P8=-14600, P9=6000,
              H1=80, H2=370, H3=2, H4=-12, H5=-37, H6=-20)

DUMPS = [
    ("datasheetExample", DATASHEET, 519888, 415148, 27000),
    ("indoorChipA", CHIP_A, 530000, 330000, 31000),
    ("coldChipB", CHIP_B, 460000, 350000, 26000),
    ("warmHumidChipC", CHIP_C, 560000, 360000, 35000),
    ("dryHighChipA", CHIP_A, 505000, 420000, 18000),
]


def swift_bytes(regs, start, end):
    return "[" + ", ".join("0x%02X" % regs.get(a, 0) for a in range(start, end + 1)) + "]"


def main():
    out = sys.stdout
    out.write("// Generated by tools/bme280/bme280_reference.py — do not edit by hand.\n")
    out.write("// Register dumps and the compensated values an independent Python\n")
    out.write("// implementation of the datasheet formulas computed from them.\n\n")
    out.write("struct BME280Dump: Sendable {\n")
    out.write("    var name: String\n    var calibration1: [UInt8]  // 0x88...0xA1\n")
    out.write("    var calibration2: [UInt8]  // 0xE1...0xE7\n    var data: [UInt8]  // 0xF7...0xFE\n")
    out.write("    var tFine: Int32\n    var temperatureCentiCelsius: Int32\n")
    out.write("    var pressureQ24_8: UInt32\n    var humidityQ22_10: UInt32\n}\n\n")
    out.write("let bme280Dumps: [BME280Dump] = [\n")
    for name, cal, adc_t, adc_p, adc_h in DUMPS:
        regs = pack(cal, adc_t, adc_p, adc_h)
        dcal, dt, dp, dh = unpack(regs)
        assert dcal == cal, (name, dcal, cal)
        assert (dt, dp, dh) == (adc_t, adc_p, adc_h)
        t, t_fine = compensate_t(dcal, dt)
        p = compensate_p(dcal, dp, t_fine)
        h = compensate_h(dcal, dh, t_fine)
        ft, fp, fh = floating(dcal, dt, dp, dh)
        assert abs(ft - t / 100) < 0.01 and abs(fp - p / 256) < 1.0 and abs(fh - h / 1024) < 0.05, name
        sys.stderr.write("%-18s T=%.2f C  P=%.2f Pa  H=%.3f %%  (t_fine=%d)\n" % (name, t / 100, p / 256, h / 1024, t_fine))
        out.write("    BME280Dump(\n")
        out.write('        name: "%s",\n' % name)
        out.write("        calibration1: %s,\n" % swift_bytes(regs, 0x88, 0xA1))
        out.write("        calibration2: %s,\n" % swift_bytes(regs, 0xE1, 0xE7))
        out.write("        data: %s,\n" % swift_bytes(regs, 0xF7, 0xFE))
        out.write("        tFine: %d, temperatureCentiCelsius: %d, pressureQ24_8: %d, humidityQ22_10: %d\n" % (t_fine, t, p, h))
        out.write("    ),\n")
    out.write("]\n")


if __name__ == "__main__":
    main()
