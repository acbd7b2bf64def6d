package platform

// CreateFile's arguments (fileapi.h, winnt.h) for an os.OpenFile-like
// open, kept apart from the call (file_windows.go) so that the mapping is
// tested on every system.
const (
	winGenericRead        = 0x80000000
	winGenericWrite       = 0x40000000
	winAppendData         = 0x4
	winWriteEA            = 0x10
	winWriteAttributes    = 0x100
	winStandardRightsWrit = 0x20000
	winSynchronize        = 0x100000
	winReadAttributes     = 0x80

	winCreateNew        = 1
	winCreateAlways     = 2
	winOpenExisting     = 3
	winOpenAlways       = 4
	winTruncateExisting = 5
)

// openMode is what an open asks for, in words rather than in one
// system's O_ flags.
type openMode struct {
	read, write, appendOnly, create, excl, trunc bool
}

// createArgs maps m to CreateFile's desired access and creation
// disposition, with os.OpenFile's meaning on Windows: an append-only
// writer gets every write right but FILE_WRITE_DATA, so that each write
// lands at the end, and the right to read too, which LockFileEx wants of
// a handle without GENERIC_WRITE (the spool locks the file it appends
// to). Every handle may read the file's attributes (what the open checks
// on it, and f.Stat).
func createArgs(m openMode) (access, disposition uint32) {
	access = winReadAttributes
	if m.read {
		access |= winGenericRead
	}
	if m.write {
		access |= winGenericWrite
		if m.appendOnly && !m.trunc {
			access &^= winGenericWrite
			access |= winGenericRead | winAppendData | winWriteAttributes | winWriteEA | winStandardRightsWrit | winSynchronize
		}
	}
	switch {
	case m.create && m.excl:
		disposition = winCreateNew
	case m.create && m.trunc:
		disposition = winCreateAlways
	case m.create:
		disposition = winOpenAlways
	case m.trunc:
		disposition = winTruncateExisting
	default:
		disposition = winOpenExisting
	}
	return access, disposition
}
