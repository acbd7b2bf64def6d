package app

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/net/http/httpguts"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/bridge"
)

// remoteFlags are wrap's flags for a remote server: `elicitray wrap --url
// URL [--header 'Name: value']… [--header-env Name=VAR]… [--bearer-env VAR]`.
type remoteFlags struct {
	url       string
	headers   []string
	headerEnv []string
	bearerEnv string
	// clientID and clientSecretEnv name a client registered beforehand
	// with the server's authorization server, for sign-in where the
	// authorization server has no dynamic registration (oauthconsent.go).
	clientID        string
	clientSecretEnv string
}

func (f *remoteFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "url", "", "wrap the remote MCP server at this Streamable HTTP (or HTTP+SSE) endpoint instead of a command")
	fs.StringArrayVar(&f.headers, "header", nil, "with --url: send this header with every request, as 'Name: value' (repeatable)")
	fs.StringArrayVar(&f.headerEnv, "header-env", nil, "with --url: send header Name with the value of environment variable VAR, as Name=VAR (repeatable), so that a token need not sit in a config file")
	fs.StringVar(&f.bearerEnv, "bearer-env", "", "with --url: send 'Authorization: Bearer' and the value of this environment variable")
	fs.StringVar(&f.clientID, "client-id", "", "with --url: sign in as this client, registered beforehand with the server's authorization server (when it has no dynamic registration)")
	fs.StringVar(&f.clientSecretEnv, "client-secret-env", "", "with --client-id: the client's secret is the value of this environment variable")
}

// remote reports whether --url (or one of its companions) was given.
func (f *remoteFlags) remote() bool {
	return f.url != "" || len(f.headers) > 0 || len(f.headerEnv) > 0 || f.bearerEnv != "" || f.clientID != "" || f.clientSecretEnv != ""
}

// check validates the flags against the arguments after --: a remote
// server has no command, and its headers need a URL.
func (f *remoteFlags) check(args []string) error {
	switch {
	case f.url == "" && f.remote():
		return usageError{errors.New("--header, --header-env and --bearer-env go with --url, as do --client-id and --client-secret-env")}
	case f.clientSecretEnv != "" && f.clientID == "":
		return usageError{errors.New("--client-secret-env goes with --client-id")}
	case f.url != "" && len(args) > 0:
		return usageError{fmt.Errorf("give either --url or a server command after --, not both (got --url %s and %q)", f.url, strings.Join(args, " "))}
	case f.url == "" && len(args) == 0:
		return usageError{errors.New("wrap needs the server command after --, or --url URL for a remote server")}
	}
	if f.url != "" {
		if _, err := remoteURL(f.url); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// remoteURL parses the --url value: an absolute http or https URL.
func remoteURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url %q is not an http:// or https:// address of an MCP endpoint (e.g. https://example.com/mcp)", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("--url %q carries a user name or password; give credentials with --header or --bearer-env instead, so they are not sent in the address", u.Redacted())
	}
	return u, nil
}

// header builds the headers to send, reading the environment through
// getenv. Errors name the flag and never the value (it may be a token).
func (f *remoteFlags) header(getenv func(string) string) (http.Header, error) {
	h := http.Header{}
	set := func(flag, name, value string) error {
		if !httpguts.ValidHeaderFieldName(name) {
			return usageError{fmt.Errorf("%s: %q is not a header name", flag, name)}
		}
		if !httpguts.ValidHeaderFieldValue(value) {
			return usageError{fmt.Errorf("%s: the value of header %s has characters a header cannot carry (a line break?)", flag, name)}
		}
		h.Add(name, value)
		return nil
	}
	for _, hv := range f.headers {
		name, value, ok := strings.Cut(hv, ":")
		if !ok {
			return nil, usageError{fmt.Errorf("--header %q: write it as 'Name: value'", hv)}
		}
		if err := set("--header", strings.TrimSpace(name), strings.TrimSpace(value)); err != nil {
			return nil, err
		}
	}
	fromEnv := func(flag, variable string) (string, error) { return envValue(getenv, flag, variable) }
	for _, he := range f.headerEnv {
		name, variable, ok := strings.Cut(he, "=")
		if !ok || variable == "" {
			return nil, usageError{fmt.Errorf("--header-env %q: write it as Name=VARIABLE", he)}
		}
		v, err := fromEnv("--header-env", variable)
		if err != nil {
			return nil, err
		}
		if err := set("--header-env", strings.TrimSpace(name), v); err != nil {
			return nil, err
		}
	}
	if f.bearerEnv != "" {
		v, err := fromEnv("--bearer-env", f.bearerEnv)
		if err != nil {
			return nil, err
		}
		if err := set("--bearer-env", "Authorization", "Bearer "+v); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// envValue is the value of the environment variable a flag names (a
// token's, a secret's), or the error saying it is missing, which never
// holds a value.
func envValue(getenv func(string) string, flag, variable string) (string, error) {
	v := getenv(variable)
	if v == "" {
		return "", runErr(fmt.Errorf("%s: the environment variable %s is not set or empty here (hosts pass a server only the variables its entry lists under \"env\", and expand them from their own environment: check both)", flag, variable))
	}
	return v, nil
}

// server is the bridge.Server for the flags. A token sent in the clear to
// another machine is said on the log: anyone on the path can read it.
// signIn, when not nil, adds the MCP authorization flow to the options
// (withRemoteOAuth). maxMessage is HTTPOptions.MaxMessage.
func (f *remoteFlags) server(grace time.Duration, maxMessage int, log io.Writer, signIn func(*bridge.HTTPOptions) error) (bridge.Server, error) {
	u, err := remoteURL(f.url)
	if err != nil {
		return nil, usageError{err}
	}
	h, err := f.header(os.Getenv)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		// Any header that came from the environment is most likely a
		// secret, as is Authorization.
		var secret []string
		if h.Get("Authorization") != "" {
			secret = append(secret, "Authorization")
		}
		for _, he := range f.headerEnv {
			if name, _, _ := strings.Cut(he, "="); !strings.EqualFold(strings.TrimSpace(name), "Authorization") {
				secret = append(secret, strings.TrimSpace(name))
			}
		}
		if len(secret) > 0 {
			fmt.Fprintf(log, "elicitray: warning: the %s header goes to %s over plain http, readable by anyone on the way; use https\n", strings.Join(secret, " and "), u.Host)
		}
	}
	o := bridge.HTTPOptions{URL: u.String(), Header: h, Grace: grace, MaxMessage: maxMessage}
	if signIn != nil {
		if err := signIn(&o); err != nil {
			return nil, runErr(err)
		}
	}
	return bridge.HTTP(o), nil
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// remoteName is the default --name of a remote server: its host name
// without "www." or "mcp." and the port, e.g. "github.com" for
// https://mcp.github.com/mcp.
func remoteName(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "server"
	}
	h := u.Hostname()
	for _, p := range []string{"www.", "mcp."} {
		if rest, ok := strings.CutPrefix(h, p); ok && strings.Contains(rest, ".") {
			h = rest
		}
	}
	if h == "" {
		return "server"
	}
	return h
}

// preRegistered is the client given with --client-id, its secret read from
// the environment variable --client-secret-env names (never from a flag's
// value, which a host config would hold in clear).
func (f *remoteFlags) preRegistered(getenv func(string) string) (oauth.Registration, error) {
	if f.clientID == "" {
		return oauth.Registration{}, nil
	}
	reg := oauth.Registration{ClientID: f.clientID}
	if f.clientSecretEnv != "" {
		secret, err := envValue(getenv, "--client-secret-env", f.clientSecretEnv)
		if err != nil {
			return reg, err
		}
		reg.ClientSecret = secret
	}
	return reg, nil
}
