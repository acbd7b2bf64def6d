package bridge

// What a remote server's refusals and a failed connection say to people:
// the sentences the host gets in place of an answer (PROTOCOL.md §8: -32603).

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/elicitray/elicitray/chars"
)

// sentence says why a reply answered nothing, or nil when its status and
// content type were as they should be (the fault lay elsewhere).
func (r *httpReply) sentence(endpoint *url.URL) error {
	if r == nil {
		return nil
	}
	media, _, _ := mime.ParseMediaType(r.contentType)
	switch {
	case r.status == http.StatusOK && media == "text/event-stream":
		return errors.New("the server's event stream ended before it answered")
	case r.status == http.StatusOK && media == "application/json":
		return errors.New("the server's reply is not a JSON-RPC answer to this request")
	case r.status == http.StatusOK:
		return fmt.Errorf("the server answered with %s, not JSON or an event stream (is %s its MCP endpoint?)", orNothing(media), redactURL(endpoint))
	}
	msg := fmt.Sprintf("the server answered %d %s", r.status, http.StatusText(r.status))
	if r.retryAfter != "" && (r.status == http.StatusTooManyRequests || r.status == http.StatusServiceUnavailable) {
		if secs, err := strconv.Atoi(strings.TrimSpace(r.retryAfter)); err == nil {
			msg += fmt.Sprintf(" and asks to wait %d seconds before trying again", secs)
		} else {
			msg += fmt.Sprintf(" and asks to wait until %s before trying again", r.retryAfter)
		}
	}
	if text := bodyText(media, r.body); text != "" {
		msg += ": " + text
	}
	return errors.New(msg)
}

// bodyText is the first line of a plain-text or JSON refusal's body, at most
// 200 characters; nothing for an HTML page or binary.
func bodyText(media string, body []byte) string {
	if media != "text/plain" && media != "application/json" {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	line = strings.TrimSpace(line)
	if !utf8.ValidString(line) {
		return ""
	}
	return chars.Cut(line, 200)
}

func orNothing(media string) string {
	if media == "" {
		return "no content type"
	}
	return media
}

// errAuthorization wraps why the sign-in a 401 started failed: that, not
// the 401 itself, is what the host is told.
var errAuthorization = errors.New("authorization failed")

var errUnauthorized = errors.New("the server answered 401: it needs authorization (give a token with --header or --bearer-env, or sign in when elicitray asks)")

// netSentence is err said for people: a failed connection by its cause
// ("connection refused", "no such host"), without the layers of "failed to
// send request" and the POST line that mcp-go and net/http wrap it in.
func netSentence(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	var dns *net.DNSError
	switch {
	case errors.As(ue.Err, &dns) && dns.IsNotFound:
		return fmt.Errorf("the host name %q could not be found", dns.Name)
	case connRefused(ue.Err):
		return errors.New("nothing is listening there (connection refused)")
	case connReset(ue.Err):
		return errors.New("the connection was reset")
	case errors.Is(ue.Err, io.EOF), errors.Is(ue.Err, io.ErrUnexpectedEOF):
		return errors.New("the server closed the connection without answering")
	}
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(ue.Err, &unknown):
		return errors.New("its TLS certificate is not signed by an authority this machine trusts (a self-signed certificate?); add its CA to the system's certificates, or point SSL_CERT_FILE at it in the server's env")
	case errors.As(ue.Err, &hostname):
		return fmt.Errorf("its TLS certificate is for %s, not for %s", certNames(hostname.Certificate), hostname.Host)
	case errors.As(ue.Err, &invalid):
		return fmt.Errorf("its TLS certificate is not valid: %v", invalid.Error())
	}
	var op *net.OpError
	if errors.As(ue.Err, &op) {
		return op.Err
	}
	return ue.Err
}

// certNames lists the names a certificate is for.
func certNames(c *x509.Certificate) string {
	names := c.DNSNames
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return c.Subject.CommonName
	}
	return strings.Join(names, ", ")
}
