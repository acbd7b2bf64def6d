package app

import (
	"fmt"
	"net/url"
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
	now         bool // one this run wraps
}

// serverRuns is what an entry's server is: its command line, or its URL.
func serverRuns(e hosts.Entry) string {
	if e.State == hosts.StateRemote || e.State == hosts.StateWrapped && len(e.Server) == 0 {
		return e.URL
	}
	return shellJoin(e.Server)
}

// sameServer reports whether two entries of one name run the same server:
// the same URL (but for the case of its scheme and host, and a final
// slash), or the same command line, word for word. Anything else may be
// another program (./tools/github-mcp-server beside the user's
// /usr/local/bin one, npx --registry=… of the same package): the name is
// then refused for the project's, and the user names it.
func sameServer(a, b hosts.Entry) bool {
	site := func(e hosts.Entry) string {
		u, err := url.Parse(serverRuns(e))
		if err != nil || u.Host == "" {
			return ""
		}
		u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
		return strings.TrimSuffix(u.String(), "/")
	}
	if sa, sb := site(a), site(b); sa != "" || sb != "" {
		return sa == sb
	}
	return len(a.Server) > 0 && slices.Equal(a.Server, b.Server)
}

// sameNameElsewhere returns an error when an entry hosts wrap is to wrap
// (wrapping: per location of found, the entries that will be) would run
// under the name of another server, one of the two in a project's file:
// one of those, or one a host's config already wraps under that name
// (every host's config, surveyed), that runs something else. Two wrapped
// before are not this run's to refuse.
func sameNameElsewhere(env hosts.Env, found []hosts.Location, wrapping [][]hosts.Entry) error {
	var servers []namedServer
	seen := map[string]bool{} // path and key of the entries taken
	add := func(l hosts.Location, e hosts.Entry, name string, now bool) {
		id := l.Path + "\x00" + strings.Join(l.Servers, "\x00") + "\x00" + e.Key
		if seen[id] {
			return
		}
		seen[id] = true
		servers = append(servers, namedServer{name: name, entry: e, where: tildePath(l.Path, env.Home),
			project: l.Scope == "project" || l.Scope == "workspace", now: now})
	}
	for i, l := range found {
		for _, e := range wrapping[i] {
			add(l, e, e.Key, true)
		}
	}
	for _, r := range hosts.Survey(env) {
		for _, e := range r.Entries {
			if e.State == hosts.StateWrapped && e.Name != "" {
				add(r.Location, e, e.Name, false)
			}
		}
	}
	for i, s := range servers {
		j := slices.IndexFunc(servers[:i], func(o namedServer) bool {
			return o.name == s.name && (o.project || s.project) && (o.now || s.now) && !sameServer(o.entry, s.entry)
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

// sharedNames finds, among reports' wrapped entries, those that run under
// the name of a different server, one of the two in a project's file (a
// project may ship an entry wrapped already: hosts wrap never saw it): by
// the entry's file and key, where the other is configured. hosts list says
// so beside each.
func sharedNames(env hosts.Env, reports []hosts.HostReport) map[string]string {
	var servers []namedServer
	keys := []string{}
	for _, r := range reports {
		for _, e := range r.Entries {
			if e.State == hosts.StateWrapped && e.Name != "" {
				servers = append(servers, namedServer{name: e.Name, entry: e, where: tildePath(r.Path, env.Home),
					project: r.Scope == "project" || r.Scope == "workspace"})
				keys = append(keys, r.Path+"\x00"+e.Key)
			}
		}
	}
	out := map[string]string{}
	for i, s := range servers {
		for j, o := range servers {
			if i != j && o.name == s.name && (o.project || s.project) && !sameServer(o.entry, s.entry) {
				out[keys[i]] = o.where
			}
		}
	}
	return out
}
