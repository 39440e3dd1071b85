"""Java's StrictMath.log in numpy, bit for bit: Spark's log2 is StrictMath.log(x) / StrictMath.log(2),
and numpy's own log (or log2) differs from it in the last bit on about 1% of whole numbers, which
would move a DCG's last bits. StrictMath is fdlibm's e_log.c (Sun, 1993), ported here branch for
branch on arrays: every operation is one IEEE double operation, as in C, with no fused multiply-add."""

from __future__ import annotations

import math
import struct

import numpy as np
import numpy.typing as npt

_LN2_HI = 6.93147180369123816490e-01  # 3fe62e42 fee00000
_LN2_LO = 1.90821492927058770002e-10  # 3dea39ef 35793c76
_TWO54 = 1.80143985094819840000e16  # 43500000 00000000
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_HIGH = np.uint64(32)
_LOW_WORD = np.uint64(0xFFFFFFFF)

Doubles = npt.NDArray[np.float64]


def log(values: npt.ArrayLike) -> Doubles:
    """StrictMath.log (fdlibm __ieee754_log) of each value."""
    x = np.array(values, dtype=np.float64, copy=True).reshape(-1)
    shape = np.shape(values)
    out = np.empty_like(x)
    bits = x.view(np.uint64)
    hx = (bits >> _HIGH).astype(np.int64)
    hx = np.where(hx >= 0x80000000, hx - 0x100000000, hx)  # the high word as C's signed int
    lx = bits & _LOW_WORD
    k = np.zeros(x.shape, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        zero = ((hx & 0x7FFFFFFF) | lx.astype(np.int64)) == 0
        negative = (hx < 0) & ~zero
        special = (hx >= 0x7FF00000) & ~negative
        out[zero] = -np.inf
        out[negative] = np.nan
        out[special] = x[special] + x[special]
        done = zero | negative | special
        subnormal = (hx < 0x00100000) & ~done
        if subnormal.any():  # scale up, as fdlibm does
            x[subnormal] *= _TWO54
            k[subnormal] -= 54
            hx[subnormal] = (x[subnormal].view(np.uint64) >> _HIGH).astype(np.int64)
        live = ~done
        k = k + (hx >> 20) - 1023
        hx = hx & 0x000FFFFF
        i = (hx + 0x95F64) & 0x100000
        high = (hx | (i ^ 0x3FF00000)).astype(np.uint64)
        normalized = ((x.view(np.uint64) & _LOW_WORD) | (high << _HIGH)).view(np.float64)
        k = k + (i >> 20)
        f = normalized - 1.0
        dk = k.astype(np.float64)

        tiny = live & ((0x000FFFFF & (2 + hx)) < 3)  # |f| < 2**-20
        exact = tiny & (f == 0.0)
        out[exact & (k == 0)] = 0.0
        both = exact & (k != 0)
        out[both] = dk[both] * _LN2_HI + dk[both] * _LN2_LO
        near = tiny & ~exact
        fn = f[near]
        r = fn * fn * (0.5 - 0.33333333333333333 * fn)
        dn, kn = dk[near], k[near]
        out[near] = np.where(kn == 0, fn - r, dn * _LN2_HI - ((r - dn * _LN2_LO) - fn))

        rest = live & ~tiny
        f, dk, k, hx = f[rest], dk[rest], k[rest], hx[rest]
        s = f / (2.0 + f)
        z = s * s
        w = z * z
        t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
        t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
        big = ((hx - 0x6147A) | (0x6B851 - hx)) > 0
        r = t2 + t1
        hfsq = 0.5 * f * f
        first = np.where(k == 0, f - (hfsq - s * (hfsq + r)), dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f))
        second = np.where(k == 0, f - s * (f - r), dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f))
        out[rest] = np.where(big, first, second)
    return out.reshape(shape)


LN2 = float(log(2.0))  # StrictMath.log(2), Spark's divisor in log2


def log2(values: npt.ArrayLike) -> Doubles:
    """Spark SQL's log2: StrictMath.log(x) / StrictMath.log(2)."""
    return log(values) / LN2


# fdlibm's e_pow.c constants (Java's StrictMath.pow): log2 of 1 and 1.5 in two pieces, the
# polynomials of log and exp, and ln2, 2/(3 ln2) and 1/ln2 split for extra precision.
_BP = (1.0, 1.5)
_DP_H = (0.0, 5.84962487220764160156e-01)
_DP_L = (0.0, 1.35003920212974897128e-08)
_TWO53 = 9007199254740992.0
_L = (
    5.99999999999994648725e-01,
    4.28571428578550184252e-01,
    3.33333329818377432918e-01,
    2.72728123808534006489e-01,
    2.30660745775561754067e-01,
    2.06975017800338417784e-01,
)
_P = (
    1.66666666666666019037e-01,
    -2.77777777770155933842e-03,
    6.61375632143793436117e-05,
    -1.65339022054652515390e-06,
    4.13813679705723846039e-08,
)
_POW_LN2 = 6.93147180559945286227e-01
_POW_LN2_H = 6.93147182464599609375e-01
_POW_LN2_L = -1.90465429995776804525e-09
_OVT = 8.0085662595372944372e-17
_CP = 9.61796693925975554329e-01
_CP_H = 9.61796700954437255859e-01
_CP_L = -7.02846165095275826516e-09


def _words(x: float) -> tuple[int, int]:
    """A double's high word (as C's signed int) and low word (unsigned)."""
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    high = bits >> 32
    return (high - (1 << 32) if high & 0x80000000 else high), bits & 0xFFFFFFFF


def _double(high: int, low: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", ((high & 0xFFFFFFFF) << 32) | (low & 0xFFFFFFFF)))[0])


def _low_cleared(x: float) -> float:
    return _double(_words(x)[0], 0)


def pow_positive(x: float, y: float) -> float:
    """StrictMath.pow(x, y) (fdlibm __ieee754_pow) for 0 < x < inf and |y| <= 2^31 finite, the
    case of rbp's p^(i - 1): every step the same IEEE double operation as fdlibm's."""
    if not (0.0 < x < math.inf) or not abs(y) <= 2.0**31:
        raise ValueError(f"pow_positive takes 0 < x < inf and |y| <= 2^31, not {x!r}, {y!r}")
    if y == 0.0 or x == 1.0:
        return 1.0
    if y == 1.0:
        return x
    if y == -1.0:
        return 1.0 / x
    if y == 2.0:
        return x * x
    if y == 0.5:
        return math.sqrt(x)
    ax = x
    ix, _ = _words(ax)
    n = 0
    if ix < 0x00100000:  # subnormal x
        ax *= _TWO53
        n -= 53
        ix, _ = _words(ax)
    n += (ix >> 20) - 0x3FF
    j = ix & 0x000FFFFF
    ix = j | 0x3FF00000
    if j <= 0x3988E:
        k = 0
    elif j < 0xBB67A:
        k = 1
    else:
        k, n, ix = 0, n + 1, ix - 0x00100000
    ax = _double(ix, _words(ax)[1])
    # log2(ax) in two pieces, t1 + t2.
    u = ax - _BP[k]
    v = 1.0 / (ax + _BP[k])
    ss = u * v
    s_h = _low_cleared(ss)
    t_h = _double(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18), 0)
    t_l = ax - (t_h - _BP[k])
    s_l = v * ((u - s_h * t_h) - s_h * t_l)
    s2 = ss * ss
    r = s2 * s2 * (_L[0] + s2 * (_L[1] + s2 * (_L[2] + s2 * (_L[3] + s2 * (_L[4] + s2 * _L[5])))))
    r += s_l * (s_h + ss)
    s2 = s_h * s_h
    t_h = _low_cleared(3.0 + s2 + r)
    t_l = r - ((t_h - 3.0) - s2)
    u = s_h * t_h
    v = s_l * t_h + t_l * ss
    p_h = _low_cleared(u + v)
    p_l = v - (p_h - u)
    z_h = _CP_H * p_h
    z_l = _CP_L * p_h + p_l * _CP + _DP_L[k]
    t = float(n)
    t1 = _low_cleared(((z_h + z_l) + _DP_H[k]) + t)
    t2 = z_l - (((t1 - t) - _DP_H[k]) - z_h)
    # y * log2(x) = p_h + p_l, y split in two.
    y1 = _low_cleared(y)
    p_l = (y - y1) * t1 + y * t2
    p_h = y1 * t1
    z = p_l + p_h
    j, i = _words(z)
    if j >= 0x40900000:  # z >= 1024
        if ((j - 0x40900000) | i) != 0 or p_l + _OVT > z - p_h:
            return math.inf
    elif (j & 0x7FFFFFFF) >= 0x4090CC00:  # z <= -1075
        if (((j - 0xC090CC00) & 0xFFFFFFFF) | i) != 0 or p_l <= z - p_h:
            return 0.0
    # 2^(p_h + p_l)
    i = j & 0x7FFFFFFF
    k = (i >> 20) - 0x3FF
    n = 0
    if i > 0x3FE00000:  # |z| > 0.5: n = [z + 0.5]
        n = j + (0x00100000 >> (k + 1))
        k = ((n & 0x7FFFFFFF) >> 20) - 0x3FF
        t = _double(n & ~(0x000FFFFF >> k), 0)
        n = ((n & 0x000FFFFF) | 0x00100000) >> (20 - k)
        if j < 0:
            n = -n
        p_h -= t
    t = _low_cleared(p_l + p_h)
    u = t * _POW_LN2_H
    v = (p_l - (t - p_h)) * _POW_LN2 + t * _POW_LN2_L
    z = u + v
    w = v - (z - u)
    t = z * z
    t1 = z - t * (_P[0] + t * (_P[1] + t * (_P[2] + t * (_P[3] + t * _P[4]))))
    r = (z * t1) / (t1 - 2.0) - (w + z * w)
    z = 1.0 - (r - z)
    high, low = _words(z)
    if ((high + (n << 20)) >> 20) <= 0:  # subnormal result
        return math.ldexp(z, n)
    return _double(high + (n << 20), low)


def powers(base: float, count: int) -> Doubles:
    """StrictMath.pow(base, i) for i = 0 .. count - 1: Spark's pow(base, position - 1) by position."""
    return np.array([pow_positive(base, float(i)) for i in range(count)], dtype=np.float64)
