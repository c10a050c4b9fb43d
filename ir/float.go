package ir

import (
	"math"
	"math/big"
	"math/bits"
)

// FloatKind names one of the builtin floating-point types.
type FloatKind uint8

const (
	F16 FloatKind = iota
	BF16
	F32
	F64
	F80
	F128
	TF32
	F8E5M2
	F8E4M3
	F8E4M3FN
	F8E5M2FNUZ
	F8E4M3FNUZ
	F8E4M3B11FNUZ
	numFloatKinds
)

// floatFormat describes a binary floating-point encoding.
type floatFormat struct {
	name     string
	width    int // storage bits
	expBits  int
	manBits  int // stored mantissa bits (explicit integer bit excluded)
	bias     int
	explicit bool // x87: the integer bit is stored
	// finiteOnly: no infinities; the all-ones exponent and mantissa is NaN (FN),
	// or (with unsignedZero) 0x80 is the only NaN (FNUZ).
	finiteOnly   bool
	unsignedZero bool
}

var floatFormats = [numFloatKinds]floatFormat{
	F16:           {name: "f16", width: 16, expBits: 5, manBits: 10, bias: 15},
	BF16:          {name: "bf16", width: 16, expBits: 8, manBits: 7, bias: 127},
	F32:           {name: "f32", width: 32, expBits: 8, manBits: 23, bias: 127},
	F64:           {name: "f64", width: 64, expBits: 11, manBits: 52, bias: 1023},
	F80:           {name: "f80", width: 80, expBits: 15, manBits: 63, bias: 16383, explicit: true},
	F128:          {name: "f128", width: 128, expBits: 15, manBits: 112, bias: 16383},
	TF32:          {name: "tf32", width: 19, expBits: 8, manBits: 10, bias: 127},
	F8E5M2:        {name: "f8E5M2", width: 8, expBits: 5, manBits: 2, bias: 15},
	F8E4M3:        {name: "f8E4M3", width: 8, expBits: 4, manBits: 3, bias: 7},
	F8E4M3FN:      {name: "f8E4M3FN", width: 8, expBits: 4, manBits: 3, bias: 7, finiteOnly: true},
	F8E5M2FNUZ:    {name: "f8E5M2FNUZ", width: 8, expBits: 5, manBits: 2, bias: 16, finiteOnly: true, unsignedZero: true},
	F8E4M3FNUZ:    {name: "f8E4M3FNUZ", width: 8, expBits: 4, manBits: 3, bias: 8, finiteOnly: true, unsignedZero: true},
	F8E4M3B11FNUZ: {name: "f8E4M3B11FNUZ", width: 8, expBits: 4, manBits: 3, bias: 11, finiteOnly: true, unsignedZero: true},
}

func (k FloatKind) String() string { return floatFormats[k].name }

// Width is the storage width in bits.
func (k FloatKind) Width() int { return floatFormats[k].width }

// IsF8 reports whether k is one of the 8-bit formats.
func (k FloatKind) IsF8() bool { return k >= F8E5M2 && k <= F8E4M3B11FNUZ }

// FloatKindByName maps an MLIR float type keyword to its kind.
func FloatKindByName(name string) (FloatKind, bool) {
	for k := FloatKind(0); k < numFloatKinds; k++ {
		if floatFormats[k].name == name {
			return k, true
		}
	}
	return 0, false
}

// RoundFloat rounds v to the nearest value representable in kind (ties to
// even); values beyond the largest finite become infinity, or NaN in
// formats without infinities. f80 and f128 are held as float64.
//
// A NaN keeps its sign and as much of its payload as kind holds (see
// nanPayload), so that NaN bit patterns survive being held as float64.
func RoundFloat(v float64, kind FloatKind) float64 {
	switch kind {
	case F64, F80, F128:
		return v
	case F32:
		if v == v {
			return float64(float32(v))
		}
	}
	b, _ := FloatBits(v, kind)
	return FloatFromBits(b, kind)
}

// NaN payloads. MLIR keeps a float's exact bits, NaN payload and signaling
// NaNs included (`0x7C01 : f16` prints back as written), while ir holds
// floats as float64. A NaN of a narrower kind is held as the float64 NaN
// with the same sign and its payload in the top bits of the float64
// significand (where IEEE conversions put it, quiet bit onto quiet bit),
// and encoding takes the payload back from there. Hardware conversions
// would set the quiet bit of a signaling NaN, so NaNs convert by bits.

// nanFromPayload is the float64 NaN carrying a payload of manBits bits.
func nanFromPayload(negative bool, payload uint64, manBits int) float64 {
	bits := uint64(0x7ff)<<52 | payload<<(52-manBits)
	if negative {
		bits |= 1 << 63
	}
	return math.Float64frombits(bits)
}

// nanPayload is the top manBits bits of a float64 NaN's payload; a payload
// that would be lost entirely becomes the quiet NaN, never an infinity.
func nanPayload(v float64, manBits int) uint64 {
	p := (math.Float64bits(v) & (1<<52 - 1)) >> (52 - manBits)
	if p == 0 {
		p = 1 << (manBits - 1)
	}
	return p
}

// FloatBits encodes v in kind, rounding to nearest even. It returns the
// low 64 bits of the encoding and the encoding's width; for f80 and f128
// use FloatBitsBig.
func FloatBits(v float64, kind FloatKind) (uint64, int) {
	switch kind {
	case F64:
		return math.Float64bits(v), 64
	case F32:
		if v != v {
			sign := math.Float64bits(v) >> 63 << 31
			return sign | 0xff<<23 | nanPayload(v, 23), 32
		}
		return uint64(math.Float32bits(float32(v))), 32
	case F80, F128:
		return FloatBitsBig(v, kind).Uint64(), floatFormats[kind].width
	}
	f := floatFormats[kind]
	return encodeSmallFloat(v, f), f.width
}

// FloatBitsBig encodes v in kind as an unsigned integer of any width.
func FloatBitsBig(v float64, kind FloatKind) *big.Int {
	f := floatFormats[kind]
	if kind != F80 && kind != F128 {
		b, _ := FloatBits(v, kind)
		return new(big.Int).SetUint64(b)
	}
	// Widen the float64 encoding: both formats have a 15-bit exponent.
	d := math.Float64bits(v)
	sign := d >> 63
	exp := int((d >> 52) & 0x7ff)
	man := d & (1<<52 - 1)
	var e uint64
	var m big.Int
	switch {
	case exp == 0x7ff:
		e = 1<<15 - 1
		m.SetUint64(man)
		m.Lsh(&m, uint(f.manBits-52))
		if f.explicit {
			m.SetBit(&m, 63, 1)
		}
	case exp == 0 && man == 0:
	default:
		var unbiased int
		if exp == 0 { // an f64 subnormal is a normal number here
			top := 63 - bits.LeadingZeros64(man)
			unbiased = top - 1074
			man = (man << uint(52-top)) & (1<<52 - 1)
		} else {
			unbiased = exp - 1023
		}
		e = uint64(unbiased + f.bias)
		m.SetUint64(man)
		m.Lsh(&m, uint(f.manBits-52))
		if f.explicit {
			m.SetBit(&m, 63, 1)
		}
	}
	r := new(big.Int).SetUint64(sign<<15 | e)
	shift := f.manBits
	if f.explicit {
		shift++ // the stored integer bit
	}
	r.Lsh(r, uint(shift))
	return r.Or(r, &m)
}

// FloatFromBitsBig decodes an f80 or f128 bit pattern to the nearest float64.
func FloatFromBitsBig(b *big.Int, kind FloatKind) float64 {
	f := floatFormats[kind]
	if kind != F80 && kind != F128 {
		return FloatFromBits(b.Uint64(), kind)
	}
	stored := f.manBits
	if f.explicit {
		stored++ // the integer bit
	}
	man := new(big.Int).And(b, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(stored)), big.NewInt(1)))
	rest := new(big.Int).Rsh(b, uint(stored))
	e := int(rest.Uint64() & (1<<15 - 1))
	sign := 1.0
	if rest.Bit(15) == 1 {
		sign = -1
	}
	if e == 1<<15-1 {
		frac := new(big.Int).Set(man)
		if f.explicit {
			frac.SetBit(frac, 63, 0)
		}
		if frac.Sign() == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	mf := new(big.Float).SetInt(man)
	if !f.explicit && e != 0 {
		mf.Add(mf, new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(f.manBits))))
	}
	exp := e - f.bias - f.manBits
	if e == 0 {
		exp = 1 - f.bias - f.manBits
	}
	if f.explicit {
		exp = e - f.bias - 63
		if e == 0 {
			exp = 1 - f.bias - 63
		}
	}
	mf.SetMantExp(mf, exp)
	v, _ := mf.Float64()
	return sign * v
}

// encodeSmallFloat encodes v into a format of at most 32 bits with
// round-to-nearest-even, by way of exact float64 arithmetic.
func encodeSmallFloat(v float64, f floatFormat) uint64 {
	signBit := uint64(1) << (f.width - 1)
	var sign uint64
	if math.Signbit(v) {
		sign = signBit
		v = -v
	}
	maxExp := 1<<f.expBits - 1
	nanBits := func() uint64 {
		if f.unsignedZero {
			return signBit
		}
		if f.finiteOnly {
			return uint64(maxExp)<<f.manBits | (1<<f.manBits - 1)
		}
		return uint64(maxExp)<<f.manBits | 1<<(f.manBits-1)
	}
	if math.IsNaN(v) {
		switch {
		case f.unsignedZero:
			return nanBits()
		case f.finiteOnly:
			return sign | nanBits()
		}
		return sign | uint64(maxExp)<<f.manBits | nanPayload(v, f.manBits)
	}
	// Largest finite value.
	topExp := maxExp - 1
	topMan := uint64(1<<f.manBits - 1)
	if f.finiteOnly && !f.unsignedZero {
		topExp = maxExp
		topMan = 1<<f.manBits - 2
	} else if f.unsignedZero {
		topExp = maxExp
	}
	if math.IsInf(v, 0) {
		if f.finiteOnly {
			return sign | nanBits()
		}
		return sign | uint64(maxExp)<<f.manBits
	}
	if v == 0 {
		if f.unsignedZero {
			return 0
		}
		return sign
	}
	// Scale to an integer count of the smallest subnormal unit.
	minExp := 1 - f.bias       // exponent of the smallest normal
	frac, exp := math.Frexp(v) // v = frac * 2^exp, frac in [0.5,1)
	e := exp - 1               // v = 1.x * 2^e
	var biased int
	var scaled float64
	if e < minExp {
		biased = 0
		scaled = math.Ldexp(v, f.manBits-minExp)
	} else {
		biased = e + f.bias
		scaled = math.Ldexp(frac*2, f.manBits) // in [2^m, 2^(m+1))
	}
	m := math.RoundToEven(scaled)
	mi := uint64(m)
	if biased == 0 {
		if mi >= 1<<f.manBits { // rounded up into the normals
			biased = 1
			mi -= 1 << f.manBits
		}
	} else {
		if mi >= 2<<f.manBits {
			mi >>= 1
			biased++
		}
		mi -= 1 << f.manBits
	}
	if biased > topExp || (biased == topExp && mi > topMan) {
		if f.finiteOnly {
			return sign | nanBits()
		}
		return sign | uint64(maxExp)<<f.manBits
	}
	r := sign | uint64(biased)<<f.manBits | mi
	if f.unsignedZero && r == signBit {
		return 0
	}
	return r
}

// FloatFromBits decodes a bit pattern of kind (not f80/f128).
func FloatFromBits(b uint64, kind FloatKind) float64 {
	switch kind {
	case F64:
		return math.Float64frombits(b)
	case F32:
		if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
			return nanFromPayload(b&(1<<31) != 0, b&0x7fffff, 23)
		}
		return float64(math.Float32frombits(uint32(b)))
	case F80, F128:
		return FloatFromBitsBig(new(big.Int).SetUint64(b), kind)
	}
	f := floatFormats[kind]
	signBit := uint64(1) << (f.width - 1)
	b &= signBit<<1 - 1
	sign := 1.0
	if b&signBit != 0 {
		sign = -1
	}
	maxExp := 1<<f.expBits - 1
	e := int(b>>f.manBits) & maxExp
	m := b & (1<<f.manBits - 1)
	switch {
	case f.unsignedZero && b == signBit:
		return math.NaN()
	case f.finiteOnly && !f.unsignedZero && e == maxExp && m == 1<<f.manBits-1:
		return math.Copysign(math.NaN(), sign)
	case !f.finiteOnly && e == maxExp:
		if m == 0 {
			return math.Inf(int(sign))
		}
		return nanFromPayload(sign < 0, m, f.manBits)
	case e == 0:
		return sign * math.Ldexp(float64(m), 1-f.bias-f.manBits)
	}
	return sign * math.Ldexp(float64(m|1<<f.manBits), e-f.bias-f.manBits)
}
