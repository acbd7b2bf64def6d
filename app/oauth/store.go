package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/elicitray/elicitray/app/platform"
)

// ErrUntrusted marks a token file elicitray refuses to read or write: a
// symbolic link, not a regular file, another user's, or open to others.
// Nothing is read from it and nothing is written through it.
var ErrUntrusted = errors.New("refusing to use it")

// Record is what elicitray keeps for one server: its registration at the
// authorization server and its tokens. It is one 0600 file, NAME.json, in
// the token directory.
type Record struct {
	// Name is the server's configured name (wrap --name).
	Name string `json:"name"`
	// URL is the MCP server's endpoint the tokens were issued for (the
	// RFC 8707 resource). Tokens for another URL are not sent.
	URL string `json:"url"`
	// ResourceMetadata is the protected resource metadata URL the server's
	// 401 named (RFC 9728 §5.1), for discovery in later runs.
	ResourceMetadata string `json:"resourceMetadata,omitempty"`
	// MetadataAtRoot says the metadata was found at the origin's
	// well-known URL, not at the one with the endpoint's path.
	MetadataAtRoot bool `json:"metadataAtRoot,omitempty"`
	// AuthServer is the authorization server's issuer.
	AuthServer string `json:"authServer,omitempty"`
	// RevocationEndpoint is the authorization server's RFC 7009 endpoint,
	// where logout revokes the tokens; "" when it has none.
	RevocationEndpoint string `json:"revocationEndpoint,omitempty"`
	// Client is the dynamic client registration's result (RFC 7591);
	// zero before registration.
	Client Registration `json:"client,omitzero"`
	// Token is the last token response, or nil before the first sign-in
	// and after a refresh token was refused.
	Token *transport.Token `json:"token,omitempty"`
	// Updated is when the record was last written.
	Updated time.Time `json:"updated"`
}

// Registration is a client registered with an authorization server.
type Registration struct {
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// AuthMethod is the token_endpoint_auth_method registered.
	AuthMethod string `json:"authMethod,omitempty"`
	// RedirectURI is the loopback redirect URI registered; its port is
	// kept for the registration's life (RFC 8252 §7.3 lets servers accept
	// any port, but not every one does).
	RedirectURI string `json:"redirectUri,omitempty"`
}

// maxRecordSize bounds a token file: tokens and a registration take a few
// kilobytes.
const maxRecordSize = 1 << 20

// safeName is a server name that can be a file name as it is.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$`)

// fileName is the token file of server name in dir: NAME.json, or for a
// name with other characters (slashes, spaces) one derived from its hash;
// the name itself is inside.
func fileName(dir, name string) string {
	if safeName.MatchString(name) {
		return filepath.Join(dir, name+".json")
	}
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(dir, "server-"+hex.EncodeToString(sum[:8])+".json")
}

// Load returns the record of server name kept in dir, or nil when there is
// none. A file that is a link, another user's, or readable by others is
// refused (ErrUntrusted).
func Load(dir, name string) (*Record, error) {
	rec, err := readRecord(fileName(dir, name))
	if err != nil || rec == nil {
		return nil, err
	}
	if rec.Name != name {
		return nil, fmt.Errorf("%s holds the tokens of %q, not of %q", fileName(dir, name), rec.Name, name)
	}
	return rec, nil
}

// readRecord reads a token file without following a link in its place
// (O_NOFOLLOW), and checks on the open file that it is a regular file of
// this user's, mode 0600. A missing file is (nil, nil).
func readRecord(path string) (*Record, error) {
	f, err := platform.OpenFile(path, os.O_RDONLY|platform.ONonblock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, platform.ErrSymlink) {
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("the token file %s is a symbolic link (to %s), not a file of your own: %w; %s", path, target, ErrUntrusted, logoutHint(path))
	}
	if err != nil {
		return nil, fmt.Errorf("opening the token file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading the token file: %w", err)
	}
	if err := checkFile(path, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRecordSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the token file %s: %w", path, err)
	}
	if len(b) > maxRecordSize {
		return nil, fmt.Errorf("the token file %s is larger than %d KiB, more than elicitray writes; %s", path, maxRecordSize>>10, logoutHint(path))
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("the token file %s is damaged (%v); %s", path, err, logoutHint(path))
	}
	return &rec, nil
}

// logoutHint says how to be rid of the token file at path that elicitray
// refuses: without it, its server is signed in to again.
func logoutHint(path string) string {
	name, ok := strings.CutSuffix(filepath.Base(path), ".json")
	if !ok {
		return "remove it, and elicitray makes a new one"
	}
	if !safeName.MatchString(name) || strings.HasPrefix(name, "server-") {
		name = "NAME"
	}
	return "`elicitray auth logout " + name + "` removes it, and the server's next request signs in again"
}

// checkFile refuses a token file that is not a regular file of this user's
// with no access for anyone else (DESIGN.md: secrets stored only for this
// user, 0600, owner-checked).
func checkFile(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return fmt.Errorf("the token file %s is a symbolic link (to %s), not a file of your own: %w; %s", path, target, ErrUntrusted, logoutHint(path))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the token file %s is not a regular file: %w; %s", path, ErrUntrusted, logoutHint(path))
	}
	if o, ok := platform.FileOwner(path, fi); ok && !o.IsMe() {
		return fmt.Errorf("the token file %s belongs to %s, not to you (%s): %w; %s", path, o.ID(), platform.Me().ID(), ErrUntrusted, logoutHint(path))
	}
	if why := platform.FileOpenToOthers(path, fi); why != "" {
		return fmt.Errorf("the token file %s is open to other users (%s): %w; %s", path, why, ErrUntrusted, logoutHint(path))
	}
	return nil
}

// Save writes rec as its server's token file in dir, 0600. The file is
// written under a fresh name (O_EXCL, O_NOFOLLOW) and renamed into place,
// so a reader never sees half a file; a link or another user's file in its
// place is refused, not replaced.
func Save(dir string, rec *Record) error {
	path := fileName(dir, rec.Name)
	if fi, err := os.Lstat(path); err == nil {
		if err := checkFile(path, fi); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking the token file: %w", err)
	}
	rec.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the token file: %w", err)
	}
	if len(b)+1 > maxRecordSize {
		// readRecord would refuse it on every later start.
		return refused("the sign-in of %s would take %d KiB to keep, more than the %d KiB a token file may hold; elicitray did not keep it", rec.Name, (len(b)+1)>>10, maxRecordSize>>10)
	}
	if err := platform.ReplaceFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("writing the token file %s: %w", path, err)
	}
	return nil
}

// Remove deletes the token file of server name in dir: its tokens and its
// registration. It reports whether there was one. A link in its place is
// removed too (unlinking it touches nothing it points to).
func Remove(dir, name string) (bool, error) {
	err := os.Remove(fileName(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing the tokens of %s: %w", name, err)
	}
	return true, nil
}

// List returns the records kept in dir, sorted by name; none when dir is
// missing. Files that cannot be read are returned as errors beside them.
func List(dir string) ([]Record, []error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("reading the token directory: %w", err)}
	}
	var recs []Record
	var errs []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		rec, err := readRecord(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rec != nil {
			recs = append(recs, *rec)
		}
	}
	slices.SortFunc(recs, func(a, b Record) int { return strings.Compare(a.Name, b.Name) })
	return recs, errs
}

// tokenStore is the transport.TokenStore of one server: its token file,
// read on every request (another wrapper of the same server may have
// refreshed, and rotated the refresh token) and written on every save.
type tokenStore struct {
	dir, name, url string
	// now is the clock that decides early expiry; tests move it.
	now func() time.Time
	// refresh, when set, trades a refresh token for a new token and saves
	// it (Server.refreshStored); GetToken calls it, under the server's lock,
	// for a token that is due.
	refresh func(ctx context.Context, refreshToken string) error
	// logf says a failed refresh on the log.
	logf func(format string, args ...any)
	// anonymous: with no token stored, GetToken returns anonymousToken, so
	// that mcp-go sends requests at all (Server.RoundTripper removes it).
	anonymous bool
}

// anonymousToken stands for "no token" on its way from the token store to
// RoundTripper, which sends the request without an Authorization header.
// mcp-go's handler sends no request when the store has no token, so that a
// server that needs no authorization would never be reached; with this,
// the first request goes without a token, and a 401 starts the sign-in,
// with the server's own challenge. It is no secret and means nothing to
// any server.
const anonymousToken = "elicitray-no-token-yet"

var _ transport.TokenStore = (*tokenStore)(nil)

// refreshAhead is how long before its expiry a token is refreshed: mcp-go's
// handler refreshes only once a token has expired, and a request sent with
// a token a second before it expires may arrive after. A token's lifetime
// shorter than twice this is refreshed half-way.
const refreshAhead = time.Minute

// GetToken returns the stored token of the server. No token, or one issued
// for another URL, is transport.ErrNoToken.
//
// A token due for refresh (refreshAhead before its expiry) is refreshed
// here, holding the server's lock and reading the file again under it:
// wrappers of the same server in other processes share the token file, and
// a rotated refresh token sent twice may get both refused (a server that
// sees one reused may revoke them all). mcp-go's handler refreshes on its
// own, without such a lock; it sees the token's expiry moved refreshAhead
// earlier, so that when the refresh here failed it tries once itself, and
// then Authorize.
func (s *tokenStore) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tok, err := s.stored()
	if errors.Is(err, transport.ErrNoToken) && s.anonymous {
		// mcp-go sends nothing without a token; this one is taken off
		// again by RoundTripper, and the request goes without.
		return &transport.Token{AccessToken: anonymousToken, TokenType: "Bearer"}, nil
	}
	if err != nil {
		return nil, err
	}
	if s.refresh != nil && tok.RefreshToken != "" && s.due(tok) {
		unlock, err := lockServer(s.dir, s.name)
		if err != nil {
			return nil, err
		}
		tok, err = s.stored()
		if err == nil && tok.RefreshToken != "" && s.due(tok) {
			if rerr := s.refresh(ctx, tok.RefreshToken); rerr != nil {
				s.logf("%s: refreshing the token failed: %v", s.name, rerr)
			}
			tok, err = s.stored()
		}
		unlock()
		if err != nil {
			return nil, err
		}
	}
	if !tok.ExpiresAt.IsZero() {
		// IsExpired compares with the wall clock; the shift is what the
		// clock of this store says is left.
		tok.ExpiresAt = time.Now().Add(tok.ExpiresAt.Sub(s.now()) - ahead(tok))
	}
	return tok, nil
}

// stored is a copy of the stored token, or transport.ErrNoToken.
func (s *tokenStore) stored() (*transport.Token, error) {
	rec, err := Load(s.dir, s.name)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.Token == nil || rec.URL != s.url {
		return nil, transport.ErrNoToken
	}
	tok := *rec.Token
	return &tok, nil
}

// due reports whether tok is to be refreshed now.
func (s *tokenStore) due(tok *transport.Token) bool {
	return !tok.ExpiresAt.IsZero() && !s.now().Before(tok.ExpiresAt.Add(-ahead(tok)))
}

// ahead is how long before tok's expiry it is refreshed.
func ahead(tok *transport.Token) time.Duration {
	if life := time.Duration(tok.ExpiresIn) * time.Second; life > 0 && life < 2*refreshAhead {
		return life / 2
	}
	return refreshAhead
}

// SaveToken keeps token in the server's token file, beside its
// registration.
func (s *tokenStore) SaveToken(ctx context.Context, token *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rec, err := Load(s.dir, s.name)
	if err != nil {
		return err
	}
	if rec == nil || rec.URL != s.url {
		rec = &Record{Name: s.name, URL: s.url}
	}
	// RFC 6749 §5.1 (token_type is required, compared without case) and
	// MCP authorization: Bearer tokens only. mcp-go would keep any type,
	// and send it as the Authorization header's scheme.
	if !strings.EqualFold(token.TokenType, "Bearer") {
		if token.TokenType == "" {
			return refused("the authorization server gave a token without a token_type; MCP authorization uses Bearer tokens only, so elicitray did not keep it")
		}
		return refused("the authorization server gave a token of type %q; MCP authorization uses Bearer tokens only, so elicitray did not keep it", token.TokenType)
	}
	if token.AccessToken == "" {
		return refused("the token endpoint gave a token response without an access_token, so elicitray has no token to keep")
	}
	saved := *token
	saved.TokenType = "Bearer"
	if saved.ExpiresAt.IsZero() && saved.ExpiresIn > 0 {
		saved.ExpiresAt = time.Now().Add(time.Duration(saved.ExpiresIn) * time.Second)
	}
	rec.Token = &saved
	return Save(s.dir, rec)
}

// clearToken forgets the server's token, keeping its registration: a
// refused refresh token is not tried again.
func (s *tokenStore) clearToken() error {
	rec, err := Load(s.dir, s.name)
	if err != nil || rec == nil {
		return err
	}
	rec.Token = nil
	return Save(s.dir, rec)
}

// lockServer takes the server's lock file (NAME.lock beside its token
// file; 0600, not followed if a link), waiting while another process holds
// it, and returns its release. The lock is flock(2): it goes with the
// process that held it, however that process ends.
func lockServer(dir, name string) (unlock func(), err error) {
	path := strings.TrimSuffix(fileName(dir, name), ".json") + ".lock"
	f, err := platform.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, platform.ErrSymlink) {
		return nil, fmt.Errorf("the lock file %s is a symbolic link, not a file of your own: %w", path, ErrUntrusted)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the sign-in lock: %w", err)
	}
	if fi, err := f.Stat(); err != nil || checkFile(path, fi) != nil {
		f.Close()
		if err == nil {
			err = checkFile(path, fi)
		}
		return nil, err
	}
	if err := platform.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("taking the sign-in lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
