package app

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/elicitray/elicitray/app/hosts"
)

// One name, one server: elicitray knows a server by the --name its
// wrapper runs under, and keeps under it the remembered answers, the last
// answers, the rules, the mute, the rate limit and the tool-call guard.
// A project's config (.cursor/mcp.json, .mcp.json, .vscode/mcp.json: a
// file that comes with the project, which someone else may have written)
// that gives a server the name of a different one the user has (a "github"
// entry of its own) would share all of that: the project's server would be
// answered by the rules the user made for theirs. hosts wrap refuses to
// make that. Two different servers of one name in the user's own configs
// (Claude Code's user and local scopes, two hosts) are the user's to name.

// namedServer is a server entry as elicitray would know it: the name it
// runs (or would run) under, what it runs, and where it is configured.
type namedServer struct {
	name, where string
	entry       hosts.Entry
	project     bool // configured in a project's file
}

// serverRuns is what an entry's server is: its command line, or its URL.
func serverRuns(e hosts.Entry) string {
	if e.State == hosts.StateRemote || e.State == hosts.StateWrapped && len(e.Server) == 0 {
		return e.URL
	}
	return shellJoin(e.Server)
}

// sameServer reports whether two entries of one name run the same server
// as far as a config can tell: URLs of one site (…/mcp and …/sse of one
// server), or commands of one program given the same arguments but for
// their options (npx -y PACKAGE is npx PACKAGE).
func sameServer(a, b hosts.Entry) bool {
	site := func(e hosts.Entry) string {
		if u, err := url.Parse(serverRuns(e)); err == nil && u.Host != "" {
			return strings.ToLower(u.Scheme + "://" + u.Host)
		}
		return ""
	}
	if sa, sb := site(a), site(b); sa != "" || sb != "" {
		return sa == sb
	}
	words := func(e hosts.Entry) []string {
		if len(e.Server) == 0 {
			return nil
		}
		out := []string{filepath.Base(e.Server[0])}
		for _, w := range e.Server[1:] {
			if !strings.HasPrefix(w, "-") {
				out = append(out, w)
			}
		}
		return out
	}
	return slices.Equal(words(a), words(b))
}

// sameNameElsewhere returns an error when an entry hosts wrap is to wrap
// (wrapping: per location of found, the entries that will be) would run
// under the name of another server, one of them in a project's file: one
// of those, or one a host's config already wraps under that name (every
// host's config, surveyed), that runs something else.
func sameNameElsewhere(env hosts.Env, found []hosts.Location, wrapping [][]hosts.Entry) error {
	var servers []namedServer
	seen := map[string]bool{} // path and key of the entries taken
	add := func(l hosts.Location, e hosts.Entry, name string) {
		id := l.Path + "\x00" + strings.Join(l.Servers, "\x00") + "\x00" + e.Key
		if seen[id] {
			return
		}
		seen[id] = true
		servers = append(servers, namedServer{name: name, entry: e, where: tildePath(l.Path, env.Home),
			project: l.Scope == "project" || l.Scope == "workspace"})
	}
	for i, l := range found {
		for _, e := range wrapping[i] {
			add(l, e, e.Key)
		}
	}
	for _, r := range hosts.Survey(env) {
		for _, e := range r.Entries {
			if e.State == hosts.StateWrapped && e.Name != "" {
				add(r.Location, e, e.Name)
			}
		}
	}
	for i, s := range servers {
		j := slices.IndexFunc(servers[:i], func(o namedServer) bool {
			return o.name == s.name && (o.project || s.project) && !sameServer(o.entry, s.entry)
		})
		if j < 0 {
			continue
		}
		o := servers[j]
		return fmt.Errorf("nothing was changed: two different servers would both be %s to elicitray: %s runs %s, and %s runs %s. "+
			"elicitray would take them for one server, and answer one with the rules and remembered answers made for the other: "+
			"rename one of them in its file (the name the host shows), then run hosts wrap again",
			displayKey(s.name), o.where, displayText(serverRuns(o.entry)), s.where, displayText(serverRuns(s.entry)))
	}
	return nil
}
