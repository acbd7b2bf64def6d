package elicit_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// caseURL returns params.url of the first message of url-mode.jsonl, the
// elicitation/create of a URL-mode elicitation.
func caseURL(tb testing.TB) string {
	tb.Helper()
	f, err := os.Open(filepath.Join(casesDir, "url-mode.jsonl"))
	if err != nil {
		tb.Fatalf("reading case: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		tb.Fatalf("url-mode.jsonl is empty: %v", sc.Err())
	}
	var line struct {
		Msg struct {
			Params struct {
				Mode string `json:"mode"`
				URL  string `json:"url"`
			} `json:"params"`
		} `json:"msg"`
	}
	if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
		tb.Fatalf("decoding url-mode.jsonl: %v", err)
	}
	if line.Msg.Params.Mode != "url" || line.Msg.Params.URL == "" {
		tb.Fatalf("url-mode.jsonl line 1 is no URL-mode elicitation: %s", sc.Bytes())
	}
	return line.Msg.Params.URL
}

// sameRefusal compares URLCheck.Refused by the sentence a person reads and
// by whether it wraps ErrURLRefused.
var sameRefusal = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error() && errors.Is(a, elicit.ErrURLRefused) == errors.Is(b, elicit.ErrURLRefused)
})

// refused is the URLCheck of a refused URL: only URL and Refused are set.
func refused(url, reason string) elicit.URLCheck {
	return elicit.URLCheck{URL: url, Refused: fmt.Errorf("%w: %s", elicit.ErrURLRefused, reason)}
}

// named is the URLCheck of a URL whose host is an ASCII name written as it
// is looked up, with warnings.
func named(url, scheme, host, port, registrable string, warnings ...string) elicit.URLCheck {
	return elicit.URLCheck{
		URL: url, Scheme: scheme, Host: host, HostASCII: host, HostUnicode: host,
		Port: port, Registrable: registrable, Warnings: warnings,
	}
}

// The warnings without parts of the URL in them.
const (
	warnHTTP          = "The link is not encrypted (http, not https)."
	warnIP            = "The link goes to an IP address instead of a named site."
	warnLatinCyrillic = "The site's name mixes alphabets (Latin and Cyrillic), a common disguise."
)

var (
	// longURL is 9,000 bytes, more than MaxURLBytes.
	longURL = "https://example.com/" + strings.Repeat("a", 9000-len("https://example.com/"))
	// longestURL is exactly MaxURLBytes long.
	longestURL = "https://example.com/" + strings.Repeat("a", elicit.MaxURLBytes-len("https://example.com/"))
)

type urlCase struct {
	name string
	url  string
	want elicit.URLCheck
}

// urlCases are URLs of URL-mode elicitations and what the consent window
// shows about each (PROTOCOL.md §6).
func urlCases(tb testing.TB) []urlCase {
	caseURL := caseURL(tb)
	return []urlCase{
		{"case file", caseURL, named(caseURL, "https", "auth.example.com", "", "example.com")},
		{"two-label public suffix", "https://www.bbc.co.uk/x", named("https://www.bbc.co.uk/x", "https", "www.bbc.co.uk", "", "bbc.co.uk")},
		{"private public suffix", "https://alice.github.io/app", named("https://alice.github.io/app", "https", "alice.github.io", "", "alice.github.io")},
		{"longest URL", longestURL, named(longestURL, "https", "example.com", "", "example.com")},
		{"http", "http://example.com", named("http://example.com", "http", "example.com", "", "example.com", warnHTTP)},
		{
			"capitals and the default port written out", "HTTPS://Auth.Example.COM:0443/",
			named("HTTPS://Auth.Example.COM:0443/", "https", "auth.example.com", "443", "example.com"),
		},
		{
			"unusual port", "https://example.com:8443/",
			named("https://example.com:8443/", "https", "example.com", "8443", "example.com", "The link uses an unusual port (:8443)."),
		},
		{
			"hyphens browsers accept", "https://r3---sn-ab5l6nzr.googlevideo.com/videoplayback",
			named("https://r3---sn-ab5l6nzr.googlevideo.com/videoplayback", "https", "r3---sn-ab5l6nzr.googlevideo.com", "", "googlevideo.com"),
		},

		// IP addresses, in the forms browsers accept.
		{"IPv4", "https://192.168.0.1/", elicit.URLCheck{
			URL: "https://192.168.0.1/", Scheme: "https", Host: "192.168.0.1", HostASCII: "192.168.0.1", HostUnicode: "192.168.0.1",
			IsIP: true, Warnings: []string{warnIP},
		}},
		{"IPv6 loopback with port", "http://[::1]:8080/", elicit.URLCheck{
			URL: "http://[::1]:8080/", Scheme: "http", Host: "::1", HostASCII: "::1", HostUnicode: "::1", Port: "8080",
			IsIP: true, Warnings: []string{warnIP, warnHTTP, "The link uses an unusual port (:8080)."},
		}},
		{"IPv4 as one decimal number", "http://2130706433/", elicit.URLCheck{
			URL: "http://2130706433/", Scheme: "http", Host: "2130706433", HostASCII: "127.0.0.1", HostUnicode: "127.0.0.1",
			IsIP: true, Warnings: []string{warnIP, warnHTTP},
		}},
		{"IPv4 in hexadecimal", "http://0x7f.0.0.1/", elicit.URLCheck{
			URL: "http://0x7f.0.0.1/", Scheme: "http", Host: "0x7f.0.0.1", HostASCII: "127.0.0.1", HostUnicode: "127.0.0.1",
			IsIP: true, Warnings: []string{warnIP, warnHTTP},
		}},
		{"IPv4 in octal, three parts", "https://0300.0250.1/", elicit.URLCheck{
			URL: "https://0300.0250.1/", Scheme: "https", Host: "0300.0250.1", HostASCII: "192.168.0.1", HostUnicode: "192.168.0.1",
			IsIP: true, Warnings: []string{warnIP},
		}},

		// Userinfo: net/url, like browsers, ends it at the last "@", so the
		// site is evil.test and "example.com" is only part of a password.
		{
			"userinfo hiding the real host", "https://user:pw@example.com@evil.test/",
			named("https://user:pw@example.com@evil.test/", "https", "evil.test", "", "evil.test",
				"The link contains a user name before “@”; the site it opens is evil.test, not user:pw@example.com."),
		},
		{
			"user name only", "https://alice@example.com/",
			named("https://alice@example.com/", "https", "example.com", "", "example.com",
				"The link contains a user name before “@”; the site it opens is example.com, not alice."),
		},
		{"empty userinfo", "https://@example.com/", named("https://@example.com/", "https", "example.com", "", "example.com")},

		// Internationalized names.
		{"punycode homograph", "https://xn--80ak6aa92e.com/", elicit.URLCheck{
			URL: "https://xn--80ak6aa92e.com/", Scheme: "https", Host: "xn--80ak6aa92e.com",
			HostASCII: "xn--80ak6aa92e.com", HostUnicode: "аррӏе.com", Registrable: "аррӏе.com",
			Warnings: []string{
				warnLatinCyrillic,
				"The site's name uses international characters: аррӏе.com is also written xn--80ak6aa92e.com.",
			},
		}},
		{"Unicode homograph", "https://аррӏе.com/", elicit.URLCheck{
			URL: "https://аррӏе.com/", Scheme: "https", Host: "аррӏе.com",
			HostASCII: "xn--80ak6aa92e.com", HostUnicode: "аррӏе.com", Registrable: "аррӏе.com",
			Warnings: []string{
				warnLatinCyrillic,
				"The site's name uses international characters: аррӏе.com is also written xn--80ak6aa92e.com.",
			},
		}},
		{"Cyrillic letters in a Latin label", "https://раypal.com/login", elicit.URLCheck{
			URL: "https://раypal.com/login", Scheme: "https", Host: "раypal.com",
			HostASCII: "xn--ypal-43d9g.com", HostUnicode: "раypal.com", Registrable: "раypal.com",
			Warnings: []string{
				warnLatinCyrillic,
				"The site's name uses international characters: раypal.com is also written xn--ypal-43d9g.com.",
			},
		}},
		{"capitals and an escape in the host", "https://%D0%90pple.COM/", elicit.URLCheck{
			URL: "https://%D0%90pple.COM/", Scheme: "https", Host: "аpple.com",
			HostASCII: "xn--pple-43d.com", HostUnicode: "аpple.com", Registrable: "аpple.com",
			Warnings: []string{
				warnLatinCyrillic,
				"The site's name uses international characters: аpple.com is also written xn--pple-43d.com.",
			},
		}},
		{"IDN in one alphabet", "https://bücher.de/", elicit.URLCheck{
			URL: "https://bücher.de/", Scheme: "https", Host: "bücher.de",
			HostASCII: "xn--bcher-kva.de", HostUnicode: "bücher.de", Registrable: "bücher.de",
			Warnings: []string{"The site's name uses international characters: bücher.de is also written xn--bcher-kva.de."},
		}},
		{"Japanese name mixing Han, Hiragana and Latin", "https://例え.jp/", elicit.URLCheck{
			URL: "https://例え.jp/", Scheme: "https", Host: "例え.jp",
			HostASCII: "xn--r8jz45g.jp", HostUnicode: "例え.jp", Registrable: "例え.jp",
			Warnings: []string{"The site's name uses international characters: 例え.jp is also written xn--r8jz45g.jp."},
		}},
		{"fullwidth letters", "https://ｅｘａｍｐｌｅ.com/", elicit.URLCheck{
			URL: "https://ｅｘａｍｐｌｅ.com/", Scheme: "https", Host: "ｅｘａｍｐｌｅ.com",
			HostASCII: "example.com", HostUnicode: "example.com", Registrable: "example.com",
			Warnings: []string{"The site's name uses international characters: ｅｘａｍｐｌｅ.com is also written example.com."},
		}},

		// Names without a registrable domain.
		{
			"localhost", "http://localhost:8080/callback",
			named("http://localhost:8080/callback", "http", "localhost", "8080", "",
				"The link goes to a name on this computer or network (localhost).", warnHTTP, "The link uses an unusual port (:8080)."),
		},
		{
			"single-label name", "https://intranet/",
			named("https://intranet/", "https", "intranet", "", "", "The link goes to a name on this computer or network (intranet)."),
		},
		{
			"multicast DNS name", "https://printer.local/",
			named("https://printer.local/", "https", "printer.local", "", "printer.local", "The link goes to a name on this computer or network (printer.local)."),
		},
		{"bare public suffix", "https://co.uk/", named("https://co.uk/", "https", "co.uk", "", "")},

		// Refused.
		{"javascript", "javascript:alert(1)", refused("javascript:alert(1)", "elicitray opens only https and http links, not javascript: links")},
		{"data", "data:text/html,x", refused("data:text/html,x", "elicitray opens only https and http links, not data: links")},
		{"file", "file:///etc/passwd", refused("file:///etc/passwd", "elicitray opens only https and http links, not file: links")},
		{"ftp", "ftp://example.com", refused("ftp://example.com", "elicitray opens only https and http links, not ftp: links")},
		{"mailto", "mailto:a@example.com", refused("mailto:a@example.com", "elicitray opens only https and http links, not mailto: links")},
		{"app scheme", "vscode://auth/callback", refused("vscode://auth/callback", "elicitray opens only https and http links, not vscode: links")},
		{"no scheme", "example.com/connect", refused("example.com/connect", "elicitray opens only https and http links, and this one names no scheme")},
		{"space in the host", "https://exa mple.com", refused("https://exa mple.com", "it contains a space or an invisible control character (U+0020)")},
		{"newline", "https://example.com/\nx", refused("https://example.com/\nx", "it contains a space or an invisible control character (U+000A)")},
		{
			"right-to-left override", "https://example.com/\u202egpj.exe",
			refused("https://example.com/\u202egpj.exe", "it contains a space or an invisible control character (U+202E)"),
		},
		{"not UTF-8", "https://example.com/\xff", refused("https://example.com/\xff", "it is not valid UTF-8 text")},
		{"9000 bytes", longURL, refused(longURL, "it is 9000 bytes long; elicitray opens links of at most 8192 bytes")},
		{"no host", "https:///nohost", refused("https:///nohost", "it names no site (the host is missing)")},
		{"no slashes", "https:example.com", refused("https:example.com", "it names no site (the host is missing)")},
		{"bad escape", "https://exa%zzmple.com/", refused("https://exa%zzmple.com/", `it is not a valid URL (invalid URL escape "%zz")`)},
		{"port out of range", "https://example.com:99999/", refused("https://example.com:99999/", "its port 99999 is not a valid port number")},
		{"underscore", "https://exa_mple.com/", refused("https://exa_mple.com/", "its site name “exa_mple.com” is not a valid domain name")},
		{"empty label", "https://example..com/", refused("https://example..com/", "its site name “example..com” is not a valid domain name")},
		{"number that is no IPv4", "http://1.2.3.256/", refused("http://1.2.3.256/", "its site name “1.2.3.256” ends in a number but is not an IP address")},
		{
			"IPv6 zone", "http://[fe80::1%25en0]/",
			refused("http://[fe80::1%25en0]/", "its address fe80::1%en0 is not an IPv6 address a browser can open"),
		},
	}
}

func TestCheckURL(t *testing.T) {
	for _, tt := range urlCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			got := elicit.CheckURL(tt.url)
			if diff := cmp.Diff(tt.want, got, sameRefusal); diff != "" {
				t.Errorf("CheckURL(%.80q) mismatch (-want +got):\n%s", tt.url, diff)
			}
		})
	}
}

// FuzzCheckURL feeds CheckURL whatever a server might send as the URL of a
// URL-mode elicitation. It must never crash, and the window must always
// either refuse the URL or know which site it opens.
func FuzzCheckURL(f *testing.F) {
	for _, tt := range urlCases(f) {
		f.Add(tt.url)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := elicit.CheckURL(raw)
		if got.URL != raw {
			t.Fatalf("URL = %q, want %q as sent", got.URL, raw)
		}
		if got.Refused != nil {
			if !errors.Is(got.Refused, elicit.ErrURLRefused) {
				t.Fatalf("Refused %v does not wrap ErrURLRefused", got.Refused)
			}
			if diff := cmp.Diff(elicit.URLCheck{URL: raw, Refused: got.Refused}, got, sameRefusal); diff != "" {
				t.Fatalf("refused, yet more is set (-want +got):\n%s", diff)
			}
			return
		}
		if got.Scheme != "https" && got.Scheme != "http" {
			t.Fatalf("offered to open a %q link", got.Scheme)
		}
		if got.Host == "" || got.HostASCII == "" || got.HostUnicode == "" {
			t.Fatalf("offered to open %q without knowing its site: %+v", raw, got)
		}
		for i := 0; i < len(got.HostASCII); i++ {
			if got.HostASCII[i] >= utf8.RuneSelf {
				t.Fatalf("HostASCII %q is not ASCII", got.HostASCII)
			}
		}
		if got.IsIP && got.Registrable != "" {
			t.Fatalf("IP address %s has registrable domain %q", got.HostASCII, got.Registrable)
		}
		for _, w := range got.Warnings {
			if w == "" {
				t.Fatalf("empty warning in %q", got.Warnings)
			}
		}
		if again := elicit.CheckURL(raw); !cmp.Equal(got, again, sameRefusal) {
			t.Fatalf("CheckURL(%q) changed between calls:\n%s", raw, cmp.Diff(got, again, sameRefusal))
		}
		// Both forms of the name open the same site.
		if !got.IsIP {
			for _, host := range []string{got.HostASCII, got.HostUnicode} {
				if c := elicit.CheckURL("https://" + host + "/"); c.Refused == nil && c.HostASCII != got.HostASCII {
					t.Fatalf("host %q opens %q, but %q opens %q", host, c.HostASCII, raw, got.HostASCII)
				}
			}
		}
	})
}
