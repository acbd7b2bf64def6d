package platform

import "slices"

// The Windows access-control logic, kept apart from the system calls
// (acl_windows.go) so that it is tested on every system.

// ace is one entry of a Windows DACL, as far as the verdict needs it.
type ace struct {
	allow       bool   // ACCESS_ALLOWED; a deny entry opens nothing
	inheritOnly bool   // applies to what is made inside, not to the object
	sid         string // the trustee
	mask        uint32 // the access it allows
}

// Access masks (winnt.h): what writing covers, and the generic rights an
// inheritable entry often carries instead of the specific ones.
const (
	accessWriteData   = 0x2
	accessAppendData  = 0x4
	accessWriteEA     = 0x10
	accessWriteAttrs  = 0x100
	accessDelete      = 0x10000
	accessWriteDAC    = 0x40000
	accessWriteOwner  = 0x80000
	accessGenericAll  = 0x10000000
	accessGenericWrit = 0x40000000
	accessWriteMask   = accessWriteData | accessAppendData | accessWriteEA | accessWriteAttrs |
		accessDelete | accessWriteDAC | accessWriteOwner | accessGenericAll | accessGenericWrit
	accessAnyMask = 0xffffffff
)

// sidOwnerRights is OWNER RIGHTS: an entry for whoever owns the object,
// checked as the owner apart.
const sidOwnerRights = "S-1-3-4"

// othersAllowed returns the trustees other than me, SYSTEM, the
// Administrators and OWNER RIGHTS that the entries of a DACL allow any of
// mask on the object itself, each once, in order. A nil DACL (present
// false) allows everyone everything: it is reported as Everyone.
func othersAllowed(aces []ace, present bool, me string, mask uint32) []string {
	if !present {
		return []string{sidEveryone}
	}
	var out []string
	for _, a := range aces {
		if !a.allow || a.inheritOnly || a.mask&mask == 0 {
			continue
		}
		switch a.sid {
		case me, sidSystem, sidAdministrators, sidOwnerRights:
			continue
		}
		if !slices.Contains(out, a.sid) {
			out = append(out, a.sid)
		}
	}
	return out
}

// sidEveryone is the Everyone group.
const sidEveryone = "S-1-1-0"

// privateSDDL is the security descriptor, in SDDL, that makes a directory
// of the user sid private: a protected DACL (P: nothing inherited from the
// parent) allowing full access (FA) to the user and to SYSTEM (SY), and
// inherited (OICI) by every file and directory made in it.
func privateSDDL(sid string) string {
	return "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;" + sid + ")"
}

// pipeSDDL is the security descriptor of the hub's named pipe on Windows
// (Listen): the same two entries, the user and SYSTEM, with nothing to
// inherit, a pipe holding no files.
func pipeSDDL(sid string) string {
	return "D:P(A;;FA;;;SY)(A;;FA;;;" + sid + ")"
}
