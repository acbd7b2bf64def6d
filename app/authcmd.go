package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/oauth"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
)

// `elicitray auth` shows and forgets the sign-ins of remote servers (wrap
// --url, PROTOCOL.md §12): what app/oauth keeps in Paths.Auth. No token,
// secret or client id is ever printed.

// newAuthCmd returns the auth command and its list and logout.
func newAuthCmd(ctx context.Context, p paths.Paths, stdout, stderr io.Writer) *cobra.Command {
	auth := &cobra.Command{
		Use:   "auth",
		Short: "Show or forget the sign-ins of remote servers (wrap --url)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	auth.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List the remote servers signed in to: name, URL, authorization server, when the token expires",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runErr(authList(p, time.Now(), stdout, stderr))
			},
		},
		&cobra.Command{
			Use:   "logout NAME",
			Short: "Revoke a remote server's tokens at its authorization server and forget them and the client registration; its next request signs in again",
			Args: func(cmd *cobra.Command, args []string) error {
				if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
					return usageError{errors.New("logout needs one server name (the name given to wrap --name; `elicitray auth list` shows them)")}
				}
				return nil
			},
			RunE: func(cmd *cobra.Command, args []string) error {
				return runErr(authLogout(ctx, p, args[0], stdout, stderr))
			},
		},
	)
	return auth
}

// authList prints one line per stored sign-in. A token file elicitray
// refuses (a link, another user's) is named on stderr and the rest listed.
func authList(p paths.Paths, now time.Time, stdout, stderr io.Writer) error {
	if err := checkPrivateDirIfThere(p.Auth); err != nil {
		return err
	}
	recs, errs := oauth.List(p.Auth)
	for _, err := range errs {
		fmt.Fprintf(stderr, "elicitray: %v\n", err)
	}
	if len(recs) == 0 {
		if len(errs) == 0 {
			fmt.Fprintln(stdout, "no remote server is signed in (`elicitray wrap --url URL` signs in when the server asks)")
		}
		return nil
	}
	tw := chars.NewColumns(stdout)
	fmt.Fprintln(tw, "SERVER\tURL\tAUTHORIZATION SERVER\tTOKEN")
	for _, r := range recs {
		// The issuer is the authorization server's own text: shown as
		// history shows server text, control characters made visible.
		issuer, _ := elicit.Visible(r.AuthServer)
		name, _ := elicit.Visible(r.Name)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, r.URL, dash(issuer), tokenState(r, now))
	}
	return tw.Flush()
}

// tokenState says when a server's token expires and whether it can be
// refreshed without the user.
func tokenState(r oauth.Record, now time.Time) string {
	t := r.Token
	switch {
	case t == nil || t.AccessToken == "":
		return "none: signs in at the next request"
	case t.ExpiresAt.IsZero():
		return "no expiry given"
	}
	state := "expires " + untilText(t.ExpiresAt, now)
	if !t.ExpiresAt.After(now) {
		state = "expired " + untilText(t.ExpiresAt, now)
	}
	if t.RefreshToken != "" {
		return state + ", refreshed without asking"
	}
	return state + ", then signs in again"
}

// authLogout revokes the tokens of server name at its authorization server
// (RFC 7009), when it has a revocation endpoint, and removes its token
// file. The file goes even when revocation fails: that is said on stderr.
func authLogout(ctx context.Context, p paths.Paths, name string, stdout, stderr io.Writer) error {
	if err := checkPrivateDirIfThere(p.Auth); err != nil {
		return err
	}
	rec, lerr := oauth.Load(p.Auth, name)
	revoked := false
	if lerr != nil {
		fmt.Fprintf(stderr, "elicitray: %v; removing it without revoking anything\n", lerr)
	} else if rec != nil && rec.Token != nil {
		rctx, cancel := context.WithTimeout(ctx, revokeWait)
		err := oauth.Revoke(rctx, nil, rec)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "elicitray: %v; the tokens stay valid there until they expire\n", err)
		} else {
			revoked = true
		}
	}
	found, err := oauth.Remove(p.Auth, name)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("no sign-in is stored for %s (`elicitray auth list` shows the servers signed in to)", name)
	}
	says := "forgot the sign-in of " + name + ": its tokens and client registration"
	if revoked {
		says += ", revoked at its authorization server"
	}
	fmt.Fprintln(stdout, says+"; its next request asks you to sign in again")
	return nil
}

// revokeWait bounds the revocation request of logout.
const revokeWait = 10 * time.Second

// checkPrivateDirIfThere verifies the token directory when it exists: a
// missing one holds no sign-ins.
func checkPrivateDirIfThere(dir string) error {
	if err := paths.CheckPrivateDir("the token directory", dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
