package elicit

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// MaxURLBytes is the longest URL of a URL-mode elicitation CheckURL accepts,
// in bytes (8 KiB). A window shows the URL in full (PROTOCOL.md §6), so a
// longer one could not be read before consenting.
const MaxURLBytes = 8192

// ErrURLRefused is wrapped by URLCheck.Refused: the URL of a URL-mode
// elicitation is one elicitray never offers to open (PROTOCOL.md §6: open
// only after explicit consent, in the system browser). The wrapping error's
// text is a sentence a person can read, e.g. "link refused: elicitray opens
// only https and http links, not javascript: links".
var ErrURLRefused = errors.New("link refused")

// URLCheck is what a URL consent window shows about the URL of a URL-mode
// elicitation (PROTOCOL.md §6: show the full URL, highlight the host, warn on
// suspicious URLs). CheckURL makes it without fetching anything.
//
// The host fields describe the site the system browser will open. net/url
// splits the URL where browsers do (userinfo ends at the last "@" of the
// authority), and the host is mapped as the WHATWG URL Standard maps it:
// UTS #46 for names, so "ＥＸＡＭＰＬＥ.com" opens example.com, and the IPv4
// number forms browsers accept, so http://2130706433/ opens 127.0.0.1.
//
// When Refused is non-nil, only URL and Refused are set.
type URLCheck struct {
	// URL is the URL exactly as the server sent it. The window shows it in
	// full, never shortened (PROTOCOL.md §6).
	URL string
	// Scheme is "https" or "http", lowercased.
	Scheme string
	// Host is the host as written in the URL, lowercased, without port or
	// brackets, percent escapes decoded (net/url's Hostname).
	Host string
	// HostASCII is the host's ASCII form: the punycode name the browser
	// looks up, e.g. "xn--80ak6aa92e.com", or for an IP address its usual
	// notation, e.g. "127.0.0.1" for "2130706433", "::1" for "[0::1]".
	HostASCII string
	// HostUnicode is the host's Unicode form, e.g. "аррӏе.com"; equal to
	// HostASCII when the host is not an internationalized domain name.
	HostUnicode string
	// Port is the port in decimal without leading zeros, "" when the URL
	// names none. A port equal to the scheme's default (443, 80) is kept.
	Port string
	// Registrable is the registrable domain (eTLD+1 of the Public Suffix
	// List, in Unicode form), e.g. "bbc.co.uk" for www.bbc.co.uk: the part
	// of the host that says who runs the site, which the window highlights.
	// It is "" for IP addresses and for hosts without one, such as
	// "localhost" or a bare public suffix like "co.uk".
	Registrable string
	// IsIP reports whether the host is an IP address (IPv4, in any of the
	// forms browsers accept, or IPv6).
	IsIP bool
	// Warnings are short sentences for people, most serious first; nil when
	// there is nothing to warn about.
	Warnings []string
	// Refused is non-nil when the window must never offer to open the URL:
	// it wraps ErrURLRefused and says why in a sentence.
	Refused error
}

// hostProfile maps hosts the way browsers do (WHATWG URL Standard, "domain
// to ASCII"): idna.Lookup's nontransitional UTS #46 mapping, joiner and
// Bidi rules, without CheckHyphens, because "r3---sn-abc.googlevideo.com"
// is a real site. Unlike browsers it keeps the STD3 rules, so every name it
// accepts is letters, digits and hyphens; the rare name a browser would
// still open, like "exa_mple.com", is refused.
var hostProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false), idna.CheckHyphens(false))

// defaultPorts are the ports browsers use when a URL names none.
var defaultPorts = map[string]int{"https": 443, "http": 80}

// CheckURL analyses the URL of a URL-mode elicitation for the consent window
// (PROTOCOL.md §6). It never fetches anything and never resolves a name.
//
// It refuses (URLCheck.Refused) a URL longer than MaxURLBytes, one that is
// not UTF-8 or holds a space or an invisible or control character (which
// would make the window show something other than what the browser opens),
// one net/url cannot parse, a scheme other than https and http (javascript:,
// data:, file:, ftp:, mailto:, an app's own scheme…), a URL without a host,
// a port above 65535, and a host a browser would not open: a name that is
// not a valid domain name, an IPv6 address with a zone, a name ending in a
// number that is no IPv4 address ("1.2.3.256").
//
// It warns, most serious first, when the URL has text before "@" in front
// of the host, when the host mixes alphabets (see below), uses
// international characters, is an IP address, or is a name on this computer
// or network (a single label such as "localhost", or a name under
// .localhost, .local, .home.arpa or .internal), when the scheme is http, and
// when the port is not the scheme's default.
//
// The host mixes alphabets when its letters, all labels together, come from
// more than one Unicode script, apart from the mixes UTS #39 allows at its
// "moderately restrictive" level: Latin with Han and Hiragana or Katakana,
// with Han and Bopomofo, with Han and Hangul, or with one other script that
// is not Cyrillic or Greek. All labels count because the classic disguise
// "аррӏе.com" is a wholly Cyrillic name under a Latin suffix.
func CheckURL(raw string) URLCheck {
	c := URLCheck{URL: raw}
	if err := c.check(raw); err != nil {
		return URLCheck{URL: raw, Refused: err}
	}
	return c
}

// refuse returns an error wrapping ErrURLRefused whose text ends with the
// reason, a sentence fragment for a person.
func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrURLRefused, fmt.Sprintf(format, args...))
}

// check fills c from raw, or returns why raw is refused.
func (c *URLCheck) check(raw string) error {
	if len(raw) > MaxURLBytes {
		return refuse("it is %d bytes long; elicitray opens links of at most %d bytes", len(raw), MaxURLBytes)
	}
	if !utf8.ValidString(raw) {
		return refuse("it is not valid UTF-8 text")
	}
	// A browser drops some of these and net/url keeps others, and a
	// right-to-left override or a zero-width space makes the window show
	// text in another order or hide it: what the person reads would not be
	// what opens.
	for _, r := range raw {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Z) {
			return refuse("it contains a space or an invisible control character (%U)", r)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		if uerr, ok := errors.AsType[*url.Error](err); ok {
			err = uerr.Err // without the URL, which the window shows anyway
		}
		return refuse("it is not a valid URL (%v)", err)
	}
	c.Scheme = u.Scheme // net/url lowercases it
	if _, ok := defaultPorts[c.Scheme]; !ok {
		if c.Scheme == "" {
			return refuse("elicitray opens only https and http links, and this one names no scheme")
		}
		return refuse("elicitray opens only https and http links, not %s: links", c.Scheme)
	}
	hostname := u.Hostname()
	if hostname == "" {
		return refuse("it names no site (the host is missing)")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p) // net/url checked that p is digits
		if err != nil || n > 65535 {
			return refuse("its port %s is not a valid port number", p)
		}
		c.Port = strconv.Itoa(n)
	}
	c.Host = strings.ToLower(hostname)
	if err := c.checkHost(hostname, strings.HasPrefix(u.Host, "[")); err != nil {
		return err
	}
	c.Warnings = c.warnings(rawUserinfo(raw))
	return nil
}

// checkHost fills the host fields from hostname, which was written in
// brackets when bracketed, or returns why a browser would not open it.
func (c *URLCheck) checkHost(hostname string, bracketed bool) error {
	if bracketed {
		// net/url has checked that it is an IP address.
		addr, err := netip.ParseAddr(hostname)
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return refuse("its address %s is not an IPv6 address a browser can open", hostname)
		}
		c.IsIP, c.HostASCII, c.HostUnicode = true, addr.String(), addr.String()
		return nil
	}
	ascii, err := hostProfile.ToASCII(hostname)
	if err != nil || hasEmptyLabel(ascii) {
		return refuse("its site name “%s” is not a valid domain name", hostname)
	}
	if addr, isNum, ok := ipv4(ascii); isNum {
		if !ok {
			return refuse("its site name “%s” ends in a number but is not an IP address", hostname)
		}
		c.IsIP, c.HostASCII, c.HostUnicode = true, addr.String(), addr.String()
		return nil
	}
	uni, err := hostProfile.ToUnicode(ascii)
	if err != nil {
		return refuse("its site name “%s” is not a valid domain name", hostname)
	}
	c.HostASCII, c.HostUnicode = ascii, uni
	if reg, err := publicsuffix.EffectiveTLDPlusOne(strings.TrimSuffix(ascii, ".")); err == nil {
		if uni, err := hostProfile.ToUnicode(reg); err == nil {
			c.Registrable = uni
		}
	}
	return nil
}

// warnings returns the warnings about c, most serious first: disguises of
// who runs the site, then sites without a public name, then the connection.
// userinfo is the text before "@" as written, "" when there is none.
func (c *URLCheck) warnings(userinfo string) []string {
	var w []string
	// An empty userinfo ("https://@example.com") misleads no one.
	if userinfo != "" {
		// The ASCII form, because "аррӏе.com" would read like the very
		// name the userinfo imitates.
		w = append(w, fmt.Sprintf("The link contains a user name before “@”; the site it opens is %s, not %s.", c.HostASCII, userinfo))
	}
	if !c.IsIP {
		if scripts := hostScripts(c.HostUnicode); mixesScripts(scripts) {
			w = append(w, fmt.Sprintf("The site's name mixes alphabets (%s), a common disguise.", joinAnd(scripts)))
		}
		if isIDN(c.Host, c.HostASCII) {
			shown := c.HostUnicode
			if shown == c.HostASCII {
				// Written with characters UTS #46 maps to ASCII,
				// such as "ｅｘａｍｐｌｅ.com".
				shown = c.Host
			}
			w = append(w, fmt.Sprintf("The site's name uses international characters: %s is also written %s.", shown, c.HostASCII))
		}
	}
	if c.IsIP {
		w = append(w, "The link goes to an IP address instead of a named site.")
	} else if isLocalName(c.HostASCII) {
		w = append(w, fmt.Sprintf("The link goes to a name on this computer or network (%s).", c.HostUnicode))
	}
	if c.Scheme == "http" {
		w = append(w, "The link is not encrypted (http, not https).")
	}
	if c.Port != "" && c.Port != strconv.Itoa(defaultPorts[c.Scheme]) {
		w = append(w, fmt.Sprintf("The link uses an unusual port (:%s).", c.Port))
	}
	return w
}

// rawUserinfo returns the text of raw before the last "@" of its authority,
// as written, or "". It splits where net/url does: the authority follows
// the scheme's "//" and ends at the first "/", "?" or "#". Only URLs that
// parsed with a host reach it.
func rawUserinfo(raw string) string {
	_, rest, ok := strings.Cut(raw, "//")
	if !ok {
		return ""
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	i := strings.LastIndex(rest, "@")
	if i < 0 {
		return ""
	}
	return rest[:i]
}

// hasEmptyLabel reports whether a domain name has an empty label other than
// the root after a final dot: ".example.com", "example..com", ".".
func hasEmptyLabel(name string) bool {
	name = strings.TrimSuffix(name, ".")
	return name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..")
}

// isIDN reports whether a host is an internationalized domain name: written
// with non-ASCII characters, or holding a punycode ("xn--") label.
func isIDN(host, ascii string) bool {
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			return true
		}
	}
	for label := range strings.SplitSeq(ascii, ".") {
		if strings.HasPrefix(label, "xn--") {
			return true
		}
	}
	return false
}

// localSuffixes are the names that never reach the public DNS: RFC 6761
// (.localhost, loopback), RFC 6762 (.local, multicast DNS), RFC 8375
// (.home.arpa) and ICANN's private-use .internal.
var localSuffixes = []string{".localhost", ".local", ".home.arpa", ".internal"}

// isLocalName reports whether an ASCII host names something on this
// computer or network: a single label such as "localhost" or "intranet",
// which resolvers complete with the network's search domains, or a name
// under one of localSuffixes.
func isLocalName(ascii string) bool {
	name := strings.TrimSuffix(ascii, ".")
	if !strings.Contains(name, ".") {
		return true
	}
	for _, s := range localSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// ipv4 reads an ASCII host as browsers do (WHATWG URL Standard, "ends in a
// number" and "IPv4 parser"): a host whose last label is a number is an
// IPv4 address in one of the forms browsers accept ("2130706433", "0x7f.1",
// "0177.0.0.1"), or nothing a browser opens. isNum reports whether the host
// ends in a number; ok, when it does, that it is an IPv4 address.
func ipv4(host string) (addr netip.Addr, isNum, ok bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if last := parts[len(parts)-1]; !endsInNumber(last) {
		return netip.Addr{}, false, false
	}
	if len(parts) > 4 {
		return netip.Addr{}, true, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		if nums[i], ok = ipv4Number(p); !ok {
			return netip.Addr{}, true, false
		}
	}
	// Every part but the last is one byte; the last fills the bytes left.
	v := nums[len(nums)-1]
	if v >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, true, false
	}
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, true, false
		}
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, true
}

// endsInNumber reports whether the last label of a host makes browsers
// read the host as an IPv4 address: it is all digits, or it parses as a
// number ("0x", "0x7f").
func endsInNumber(last string) bool {
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// ipv4Number parses one part of an IPv4 address as browsers do: "0x" starts
// hexadecimal, a leading "0" octal, and "0x" alone is 0.
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0':
		base, s = 8, s[1:]
	}
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil
}

// hostScripts returns the Unicode scripts of the letters of host, Latin
// first when present, the others in order of first appearance. Common and
// Inherited characters (digits, hyphens, dots, combining marks) belong to
// every script and are left out.
func hostScripts(host string) []string {
	var scripts []string
	latin := false
	for _, r := range host {
		name := scriptOf(r)
		switch {
		case name == "" || name == "Common" || name == "Inherited":
		case name == "Latin":
			latin = true
		default:
			if !slices.Contains(scripts, name) {
				scripts = append(scripts, name)
			}
		}
	}
	if latin {
		scripts = append([]string{"Latin"}, scripts...)
	}
	return scripts
}

// scriptOf returns the name of r's script in unicode.Scripts, "" when it
// has none. Scripts do not overlap, so the map's order does not matter.
func scriptOf(r rune) string {
	switch {
	case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		return "Latin"
	case r < utf8.RuneSelf:
		return "Common"
	}
	for name, table := range unicode.Scripts {
		if unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// mixesScripts reports whether scripts, as hostScripts returns them, mix
// alphabets in a way UTS #39 §5.2 "moderately restrictive" does not allow.
func mixesScripts(scripts []string) bool {
	if len(scripts) <= 1 {
		return false
	}
	others := scripts
	if scripts[0] == "Latin" {
		others = scripts[1:]
	}
	for _, allowed := range [][]string{
		{"Han", "Hiragana", "Katakana"}, // Japanese
		{"Han", "Bopomofo"},             // Chinese
		{"Han", "Hangul"},               // Korean
	} {
		if !slices.ContainsFunc(others, func(s string) bool { return !slices.Contains(allowed, s) }) {
			return false
		}
	}
	if scripts[0] != "Latin" {
		return true
	}
	return len(others) > 1 || others[0] == "Cyrillic" || others[0] == "Greek"
}

// joinAnd joins names as a sentence does: "A", "A and B", "A, B and C".
func joinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
