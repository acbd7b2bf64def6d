package elicit

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Numbers travel as json.Number, the number's JSON text, from the schema's
// default or the user's typing to the content the server receives and the
// history keeps. A float64 holds about 16 significant digits: read into one,
// a default of 9007199254740993 is shown exactly and sent as
// 9007199254740992 (issue 10, "values exactly as shown"). Bounds and values
// compare as exact decimals (big.Rat), as the final check's validator
// compares them, so 0.3 is a multiple of 0.1 and a bound beyond 2^53 is not
// rounded.

// MaxNumberDigits is how many digits a number may have before its decimal
// point, and again after it, written out in full: 1e400 and
// 0.1000000000000000000001 fit, 1e1001 does not. Exact arithmetic on a
// number of a million digits would hold up the wrapper and the hub; the
// final check's validator refuses exponents beyond a million outright.
const MaxNumberDigits = 1000

// maxNumberText is the longest number text read, in bytes: digits before
// and after the point, sign, point and exponent. Beyond it a number is
// refused however few digits it has written out ("1.000…0").
const maxNumberText = 2*MaxNumberDigits + 16

// Messages for numbers beyond MaxNumberDigits, completing the label.
const msgDigits = "has too many digits"

// readNumber reads s as a number and returns its JSON text and exact value,
// or the message for a person when it is none. With typed, s is what a
// person typed into an entry, and the forms JSON does not allow but people
// write ("+5", ".5", "5.", "007") are rewritten as JSON ("5", "0.5", "5",
// "7"); a JSON number comes back as it is, byte for byte. Without typed, s
// must be a JSON number (RFC 8259 §6), from a schema or a decoded answer.
func readNumber(s string, typed bool) (json.Number, *big.Rat, string) {
	if len(s) > maxNumberText {
		return "", nil, msgDigits
	}
	n, ok := scanNumber(s, typed)
	if !ok {
		return "", nil, msgNumber
	}
	if msg := n.digitsMsg(); msg != "" {
		return "", nil, msg
	}
	text := s
	if typed {
		text = n.json()
	}
	if n.zero() {
		// big.Rat would work out 10^exponent even for a zero.
		return json.Number(text), new(big.Rat), ""
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok { // the scan and the limits above leave nothing it refuses
		return "", nil, msgNumber
	}
	return json.Number(text), r, ""
}

// numberParts is a number's text taken apart.
type numberParts struct {
	neg       bool
	intPart   string // digits before the point, as written (may be "" when typed)
	frac      string // digits after the point, as written
	point     bool   // a point was written
	exp       string // the exponent with its "e" or "E" and sign, as written; "" for none
	expVal    int    // the exponent's value, clamped to ±maxExpVal
	expBeyond bool   // the exponent is beyond ±maxExpVal
}

// maxExpVal is where exponents stop being read exactly: beyond every
// number MaxNumberDigits and maxNumberText allow.
const maxExpVal = 1 << 20

// scanNumber takes s apart: a JSON number, or with typed also a leading
// "+", leading zeros, and a point with digits on one side only.
func scanNumber(s string, typed bool) (numberParts, bool) {
	var n numberParts
	i := 0
	if i < len(s) && (s[i] == '-' || (typed && s[i] == '+')) {
		n.neg = s[i] == '-'
		i++
	}
	start := i
	i = skipDigits(s, i)
	n.intPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		n.point = true
		i++
		start = i
		i = skipDigits(s, i)
		n.frac = s[start:i]
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		start = i
		i++
		negExp := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			negExp = s[i] == '-'
			i++
		}
		digits := i
		i = skipDigits(s, i)
		if i == digits {
			return n, false
		}
		n.exp = s[start:i]
		n.expVal = maxExpVal
		if e := strings.TrimLeft(s[digits:i], "0"); len(e) <= len(strconv.Itoa(maxExpVal)) {
			n.expVal, _ = strconv.Atoi("0" + e)
		}
		if n.expVal >= maxExpVal {
			n.expVal, n.expBeyond = maxExpVal, true
		}
		if negExp {
			n.expVal = -n.expVal
		}
	}
	if i != len(s) || (n.intPart == "" && n.frac == "") {
		return n, false
	}
	if !typed {
		// JSON: digits on both sides of a point, no leading zero.
		if n.intPart == "" || (n.point && n.frac == "") || (len(n.intPart) > 1 && n.intPart[0] == '0') {
			return n, false
		}
	}
	return n, true
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// zero reports whether every digit is 0.
func (n numberParts) zero() bool {
	return strings.Trim(n.intPart+n.frac, "0") == ""
}

// digitsMsg returns the message for a number beyond MaxNumberDigits, ""
// for one within it.
func (n numberParts) digitsMsg() string {
	digits := n.intPart + n.frac
	// The point sits after p of the digits (before the first when p < 0).
	p := len(n.intPart) + n.expVal
	before := 0
	if !n.zero() {
		before = p - (len(digits) - len(strings.TrimLeft(digits, "0")))
	}
	switch {
	case n.expBeyond && n.expVal > 0 && !n.zero(), before > MaxNumberDigits:
		if n.neg {
			return msgTooSmall
		}
		return msgTooLarge
	case n.expBeyond, len(digits)-p > MaxNumberDigits:
		return msgDigits
	}
	return ""
}

// json is the number as JSON text: no "+", no leading zeros, a digit on
// each side of the point; the exponent as written.
func (n numberParts) json() string {
	var b strings.Builder
	if n.neg {
		b.WriteByte('-')
	}
	whole := strings.TrimLeft(n.intPart, "0")
	if whole == "" {
		whole = "0"
	}
	b.WriteString(whole)
	if n.frac != "" {
		b.WriteString("." + n.frac)
	}
	b.WriteString(n.exp)
	return b.String()
}

// toNumber returns v, any Go number, as the json.Number of a KindNumber or,
// with whole, a KindInteger field, or the message for a person. A
// json.Number keeps its text; an integer's is written without fraction or
// exponent ("42.0" and "4.2e1" are sent as 42), as JSON Schema counts them
// integers (2020-12 validation §6.1.1) and servers that read an integer
// into an int expect.
func toNumber(v any, whole bool) (json.Number, string) {
	var text string
	switch n := v.(type) {
	case json.Number:
		text = string(n)
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) { // no such JSON numbers
			return "", msgNumber
		}
		text = strconv.FormatFloat(n, 'g', -1, 64)
	case float32:
		if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
			return "", msgNumber
		}
		text = strconv.FormatFloat(float64(n), 'g', -1, 32)
	case int:
		text = strconv.Itoa(n)
	case int32:
		text = strconv.FormatInt(int64(n), 10)
	case int64:
		text = strconv.FormatInt(n, 10)
	case uint64:
		text = strconv.FormatUint(n, 10)
	default:
		if whole {
			return "", msgWhole
		}
		return "", msgNumber
	}
	num, r, msg := readNumber(text, false)
	switch {
	case msg == msgNumber && whole:
		return "", msgWhole
	case msg != "":
		return "", msg
	case whole && !r.IsInt():
		return "", msgWhole
	case whole:
		return json.Number(r.Num().String()), ""
	}
	return num, ""
}

// exact returns the value of n, a json.Number readNumber accepted.
func exact(n json.Number) *big.Rat {
	_, r, msg := readNumber(string(n), false)
	if msg != "" {
		return new(big.Rat)
	}
	return r
}

// NumberText returns n, a JSON number, as a person writes it: the text as
// the server or the user wrote it, except that an exponent is written out
// when that is short ("1e2" is 100, "2.5E-1" is 0.25) and kept when it is
// not (1e400). Every digit is kept.
func NumberText(n json.Number) string {
	p, ok := scanNumber(string(n), false)
	if !ok || p.exp == "" || p.expBeyond {
		return string(n)
	}
	digits := p.intPart + p.frac
	point := len(p.intPart) + p.expVal
	if point < -20 || point > 21 { // "0.000…" or "…000" longer than the exponent form
		return string(n)
	}
	var s string
	switch {
	case point <= 0:
		s = "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		s = digits + strings.Repeat("0", point-len(digits))
	default:
		s = digits[:point] + "." + digits[point:]
	}
	if whole, frac, found := strings.Cut(s, "."); found {
		whole = strings.TrimLeft(whole, "0")
		if whole == "" {
			whole = "0"
		}
		s = whole
		if frac = strings.TrimRight(frac, "0"); frac != "" {
			s += "." + frac
		}
	} else if s = strings.TrimLeft(s, "0"); s == "" {
		s = "0"
	}
	if p.neg {
		s = "-" + s
	}
	return s
}
