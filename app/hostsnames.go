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
	id          string // its file and key, for hosts list
	entry       hosts.Entry
	project     bool // configured in a project's file
	now         bool // one this run of hosts wrap wraps
}

func newNamedServer(env hosts.Env, l hosts.Location, e hosts.Entry, name string, now bool) namedServer {
	return namedServer{name: name, where: tildePath(l.Path, env.Home), id: entryID(l, e), entry: e,
		project: l.Scope == "project" || l.Scope == "workspace", now: now}
}

// entryID names entry e of l: its file, the table it is in (Claude Code's
// local scopes share one file) and its key.
func entryID(l hosts.Location, e hosts.Entry) string {
	return l.Path + "\x00" + strings.Join(l.Servers, "\x00") + "\x00" + e.Key
}

// clashes reports whether s and o would run under one name and are
// different servers, one of the two configured in a project's file.
func (s namedServer) clashes(o namedServer) bool {
	return s.name == o.name && (s.project || o.project) && !sameServer(s.entry, o.entry)
}

// wrappedServers are the entries that reports' configs wrap, under their
// --name.
func wrappedServers(env hosts.Env, reports []hosts.HostReport) []namedServer {
	var out []namedServer
	for _, r := range reports {
		for _, e := range r.Entries {
			if e.State == hosts.StateWrapped && e.Name != "" {
				out = append(out, newNamedServer(env, r.Location, e, e.Name, false))
			}
		}
	}
	return out
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
// (wrapping: per location of found, the entries that will be) clashes
// with another server: one of those, or one a host's config already wraps
// under that name (every host's config, surveyed). Two wrapped before are
// not this run's to refuse (hosts list says so of them: sharedNames).
func sameNameElsewhere(env hosts.Env, found []hosts.Location, wrapping [][]hosts.Entry) error {
	var servers []namedServer
	for i, l := range found {
		for _, e := range wrapping[i] {
			servers = append(servers, newNamedServer(env, l, e, e.Key, true))
		}
	}
	servers = append(servers, wrappedServers(env, hosts.Survey(env))...)
	for i, s := range servers {
		j := slices.IndexFunc(servers[:i], func(o namedServer) bool { return (o.now || s.now) && o.clashes(s) })
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

// sharedNames finds, among reports' wrapped entries, those that clash with
// another (a project may ship an entry wrapped already: hosts wrap never
// saw it): by entryID, where the other is configured.
// hosts list says so beside each.
func sharedNames(env hosts.Env, reports []hosts.HostReport) map[string]string {
	servers := wrappedServers(env, reports)
	out := map[string]string{}
	for _, s := range servers {
		if j := slices.IndexFunc(servers, func(o namedServer) bool { return o.id != s.id && o.clashes(s) }); j >= 0 {
			out[s.id] = servers[j].where
		}
	}
	return out
}
