package platform

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunDirFor: the hub's directory on each system, from the home (and on
// Windows LOCALAPPDATA) alone, and a home too long for a socket's path
// falls back to /tmp/elicitray-UID where the system has one.
func TestRunDirFor(t *testing.T) {
	long := "/home/" + strings.Repeat("a", 80)
	for _, tt := range []struct {
		name, goos, home, runtimeDir string
		env                          map[string]string
		want                         string
	}{
		{name: "linux with logind", goos: "linux", home: "/home/ada", runtimeDir: "/run/user/4242", want: "/run/user/4242/elicitray"},
		{name: "linux without logind", goos: "linux", home: "/home/ada", want: "/home/ada/.local/state/elicitray/run"},
		{name: "linux home too long", goos: "linux", home: long, want: "/tmp/elicitray-4242"},
		{name: "macos", goos: "darwin", home: "/Users/ada", want: "/Users/ada/Library/Caches/elicitray/run"},
		{name: "macos home too long", goos: "darwin", home: "/Users/" + strings.Repeat("a", 70), want: "/tmp/elicitray-4242"},
		{name: "windows", goos: "windows", home: `C:\Users\ada`, env: map[string]string{"LOCALAPPDATA": `D:\Profiles\ada\AppData\Local\`},
			want: `D:\Profiles\ada\AppData\Local\elicitray\run`},
		{name: "windows without LOCALAPPDATA", goos: "windows", home: `C:\Users\ada`, want: `C:\Users\ada\AppData\Local\elicitray\run`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := runDirFor(tt.goos, tt.home, 4242, tt.runtimeDir, func(k string) string { return tt.env[k] })
			if got != tt.want {
				t.Errorf("runDirFor(%s, %q) = %q, want %q", tt.goos, tt.home, got, tt.want)
			}
			if n := len(join(tt.goos, got, SocketName)); n > maxSocketPath(tt.goos) {
				t.Errorf("the socket path is %d bytes, more than %s allows", n, tt.goos)
			}
		})
	}
}

// TestOthersAllowed: which entries of a Windows DACL make a directory open
// to other users, and which do not (the user, SYSTEM, the Administrators,
// entries for what is made inside only, deny entries).
func TestOthersAllowed(t *testing.T) {
	const me = "S-1-5-21-1-2-3-1001"
	const users = "S-1-5-32-545"
	const fileGenericRead = 0x120089
	profile := []ace{
		{allow: true, sid: sidSystem, mask: 0x1f01ff},
		{allow: true, sid: sidAdministrators, mask: 0x1f01ff},
		{allow: true, sid: me, mask: 0x1f01ff},
	}
	for _, tt := range []struct {
		name    string
		aces    []ace
		present bool
		mask    uint32
		want    []string
	}{
		{name: "a profile's directory", aces: profile, present: true, mask: accessAnyMask},
		{name: "no DACL at all", present: false, mask: accessAnyMask, want: []string{sidEveryone}},
		{name: "an empty DACL", present: true, mask: accessAnyMask},
		{name: "Everyone may read", aces: append(slices.Clone(profile), ace{allow: true, sid: sidEveryone, mask: fileGenericRead}),
			present: true, mask: accessAnyMask, want: []string{sidEveryone}},
		{name: "Users may read, twice, and Everyone", aces: append(slices.Clone(profile),
			ace{allow: true, sid: users, mask: fileGenericRead}, ace{allow: true, sid: users, mask: 0x1}, ace{allow: true, sid: sidEveryone, mask: 0x1}),
			present: true, mask: accessAnyMask, want: []string{users, sidEveryone}},
		{name: "CREATOR OWNER for what is made inside", aces: append(slices.Clone(profile), ace{allow: true, inheritOnly: true, sid: "S-1-3-0", mask: accessGenericAll}),
			present: true, mask: accessAnyMask},
		{name: "a deny entry", aces: append(slices.Clone(profile), ace{allow: false, sid: sidEveryone, mask: accessGenericAll}),
			present: true, mask: accessAnyMask},
		{name: "Users may read a config: not a writer", aces: append(slices.Clone(profile), ace{allow: true, sid: users, mask: fileGenericRead}),
			present: true, mask: accessWriteMask},
		{name: "Users may write a config", aces: append(slices.Clone(profile), ace{allow: true, sid: users, mask: accessGenericWrit}),
			present: true, mask: accessWriteMask, want: []string{users}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, othersAllowed(tt.aces, tt.present, me, tt.mask)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrivateSDDL: a private directory on Windows gets a protected DACL
// (nothing inherited from a shared parent) for SYSTEM and the user, which
// everything made in it inherits; the hub's pipe gets the same entries.
func TestPrivateSDDL(t *testing.T) {
	got := privateSDDL("S-1-5-21-1-2-3-1001")
	if want := "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;S-1-5-21-1-2-3-1001)"; got != want {
		t.Errorf("privateSDDL = %q, want %q", got, want)
	}
	// The hub's named pipe: SYSTEM and the user alone, nothing inherited.
	if got, want := pipeSDDL("S-1-5-21-1-2-3-1001"), "D:P(A;;FA;;;SY)(A;;FA;;;S-1-5-21-1-2-3-1001)"; got != want {
		t.Errorf("pipeSDDL = %q, want %q", got, want)
	}
}

// TestBreakawayFlags: the detached hub leaves the host's job on Windows
// only where the job allows it, since CreateProcess refuses the flag
// otherwise and the hub would not start at all.
func TestBreakawayFlags(t *testing.T) {
	for _, tt := range []struct {
		name   string
		inJob  bool
		limits uint32
		want   uint32
	}{
		{name: "no job", want: 0},
		{name: "a job that allows breaking away", inJob: true, limits: jobLimitBreakawayOK, want: createBreakawayFromJob},
		{name: "a job whose children leave it anyway", inJob: true, limits: jobLimitBreakawayOK | jobLimitSilentBreakawayOK, want: 0},
		{name: "a job that forbids it", inJob: true, limits: 0x2000, want: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := breakawayFlags(tt.inJob, tt.limits); got != tt.want {
				t.Errorf("breakawayFlags(%v, %#x) = %#x, want %#x", tt.inJob, tt.limits, got, tt.want)
			}
		})
	}
}

// TestUserNames: users are named in sentences by name and id, or by id
// alone when the account database does not know them.
func TestUserNames(t *testing.T) {
	if got := UID(4242424).String(); got != "uid 4242424" {
		t.Errorf("an unknown uid is %q", got)
	}
	if got := SID("S-1-5-21-1-2-3-1001").ID(); got != "S-1-5-21-1-2-3-1001" {
		t.Errorf("a SID's ID is %q", got)
	}
	if !UID(0).IsAdmin() || !SID(sidAdministrators).IsAdmin() || UID(1000).IsAdmin() || SID("S-1-5-21-1-2-3-1001").IsAdmin() {
		t.Error("IsAdmin is wrong for root, Administrators or a user")
	}
	if UID(1000) == SID("S-1-5-21-1-2-3-1000") {
		t.Error("a uid and a SID compare equal")
	}
}

// TestCreateArgs: the Windows open asks CreateFile for what os.OpenFile
// would: an appending writer cannot overwrite (but may lock: it may read),
// O_EXCL creates only a new file, and a plain open creates nothing.
func TestCreateArgs(t *testing.T) {
	const appendAccess = winReadAttributes | winGenericRead | winAppendData | winWriteAttributes | winWriteEA | winStandardRightsWrit | winSynchronize
	for _, tt := range []struct {
		name        string
		m           openMode
		access      uint32
		disposition uint32
	}{
		{name: "read", m: openMode{read: true}, access: winReadAttributes | winGenericRead, disposition: winOpenExisting},
		{name: "the hub lock", m: openMode{read: true, write: true, create: true}, access: winReadAttributes | winGenericRead | winGenericWrite, disposition: winOpenAlways},
		{name: "a new spool file", m: openMode{write: true, appendOnly: true, create: true, excl: true}, access: appendAccess, disposition: winCreateNew},
		{name: "the hub log", m: openMode{write: true, appendOnly: true, create: true}, access: appendAccess, disposition: winOpenAlways},
		{name: "truncate and append", m: openMode{write: true, appendOnly: true, trunc: true}, access: winReadAttributes | winGenericWrite, disposition: winTruncateExisting},
		{name: "create or truncate", m: openMode{write: true, create: true, trunc: true}, access: winReadAttributes | winGenericWrite, disposition: winCreateAlways},
	} {
		t.Run(tt.name, func(t *testing.T) {
			access, disposition := createArgs(tt.m)
			if access != tt.access || disposition != tt.disposition {
				t.Errorf("createArgs(%+v) = %#x, %d; want %#x, %d", tt.m, access, disposition, tt.access, tt.disposition)
			}
		})
	}
}
