package oauth

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// The token store reports a token expired refreshAhead before it is, or
// half-way through a lifetime shorter than twice that, so that mcp-go's
// handler (which refreshes expired tokens) refreshes ahead of the expiry.
func TestRefreshAhead(t *testing.T) {
	issued := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		life    time.Duration
		at      time.Duration // after issue
		expired bool
	}{
		{"an hour's token after 58 minutes", time.Hour, 58 * time.Minute, false},
		{"an hour's token after 59 minutes and a second", time.Hour, 59*time.Minute + time.Second, true},
		{"a minute's token after 29 seconds", time.Minute, 29 * time.Second, false},
		{"a minute's token after 31 seconds", time.Minute, 31 * time.Second, true},
		{"a second's token at once", time.Second, 0, false},
		{"a second's token after 0.6 seconds", time.Second, 600 * time.Millisecond, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "auth")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			now := issued.Add(tt.at)
			s := &tokenStore{dir: dir, name: "remote", url: "https://example.com/mcp", now: func() time.Time { return now }}
			tok := &transport.Token{AccessToken: "a", TokenType: "Bearer", RefreshToken: "r", ExpiresIn: int64(tt.life / time.Second), ExpiresAt: issued.Add(tt.life)}
			if err := s.SaveToken(t.Context(), tok); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetToken(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got.IsExpired() != tt.expired {
				t.Errorf("IsExpired() = %v, want %v (expiry reported as %v from now)", got.IsExpired(), tt.expired, time.Until(got.ExpiresAt).Round(time.Millisecond))
			}
		})
	}
}
