package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// me is the SID of the user this process runs as, read once.
var me = sync.OnceValue(func() User {
	tok := windows.GetCurrentProcessToken()
	tu, err := tok.GetTokenUser()
	if err != nil {
		return User{}
	}
	return SID(tu.User.Sid.String())
})

// UnderWine reports whether this Windows build runs under Wine (its ntdll
// exports wine_get_version): make test-windows's test bed, never a place
// users run it (elicitray has a Linux build). Wine keeps no access list a
// program sets and reads back the same default one, Everyone included, for
// every file: under Wine the checks of access lists (DirOpenToOthers and
// the others) cannot tell anything, and say nothing; the files are the
// Unix user's, under the Unix permissions of the Wine prefix.
var UnderWine = sync.OnceValue(func() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
})

// Me is the user this process runs as.
func Me() User { return me() }

// FileOwner returns the owner of the file at path (fi is not used: Windows
// keeps the owner in the security descriptor), and false when it cannot be
// read.
func FileOwner(path string, fi fs.FileInfo) (User, bool) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return User{}, false
	}
	return ownerIn(sd)
}

// OwnerOf returns the owner of the open file f, and false when it cannot be
// read.
func OwnerOf(f *os.File) (User, bool) {
	sd, err := windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return User{}, false
	}
	return ownerIn(sd)
}

func ownerIn(sd *windows.SECURITY_DESCRIPTOR) (User, bool) {
	o, _, err := sd.Owner()
	if err != nil || o == nil {
		return User{}, false
	}
	return SID(o.String()), true
}

// aclOf reads the DACL of the file at path as entries; present is false
// for a nil DACL (everyone may do everything).
func aclOf(path string) (aces []ace, present bool, err error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil, false, err
	}
	dacl, _, err := sd.DACL()
	if errors.Is(err, windows.ERROR_OBJECT_NOT_FOUND) || err == nil && dacl == nil {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	for i := range uint32(dacl.AceCount) {
		var e *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &e); err != nil {
			return nil, false, err
		}
		sid := (*windows.SID)(unsafe.Pointer(&e.SidStart))
		aces = append(aces, ace{
			allow:       e.Header.AceType == windows.ACCESS_ALLOWED_ACE_TYPE,
			inheritOnly: e.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0,
			sid:         sid.String(),
			mask:        uint32(e.Mask),
		})
	}
	return aces, true, nil
}

// othersSentence says who of others may do what to path: "Everyone
// (S-1-1-0) and BUILTIN\Users (S-1-5-32-545) may enter it".
func othersSentence(others []string, does string) string {
	names := make([]string, len(others))
	for i, s := range others {
		names[i] = SID(s).String()
	}
	return strings.Join(names, " and ") + " " + does
}

// DirOpenToOthers says how the directory at path lets other users in
// ("Everyone (S-1-1-0) may enter it, want you alone"), or "" when it does
// not: its DACL allows access to no one but the user, SYSTEM and the
// Administrators. A DACL that cannot be read counts as open.
func DirOpenToOthers(path string, fi fs.FileInfo) string {
	return othersMay(path, accessAnyMask, "may enter it, want you alone")
}

// FileOpenToOthers says who other than the user, SYSTEM and the
// Administrators may read or change the file at path, or "" when no one
// may.
func FileOpenToOthers(path string, fi fs.FileInfo) string {
	return othersMay(path, accessAnyMask, "may open it, want you alone")
}

// WritableByOthers says who other than the user, SYSTEM and the
// Administrators may change the file at path, or "" when no one may.
func WritableByOthers(path string, fi fs.FileInfo) string {
	return othersMay(path, accessWriteMask, "may write to it")
}

// othersMay says who other than the user, SYSTEM and the Administrators
// the DACL of path allows any of mask, and that they do what does; "" for
// no one, and always under Wine (UnderWine).
func othersMay(path string, mask uint32, does string) string {
	if UnderWine() {
		return ""
	}
	aces, present, err := aclOf(path)
	if err != nil {
		return fmt.Sprintf("its access list cannot be read (%v)", err)
	}
	if others := othersAllowed(aces, present, Me().sid, mask); len(others) > 0 {
		return othersSentence(others, does)
	}
	return ""
}

// IsPrivateDir reports whether the directory at path is closed to other
// users (DirOpenToOthers says nothing).
func IsPrivateDir(path string, fi fs.FileInfo) bool { return DirOpenToOthers(path, fi) == "" }

// MakePrivate closes the directory dir, the user's own, to everyone else:
// a protected DACL for the user and SYSTEM alone (privateSDDL), which what
// is made in it inherits.
func MakePrivate(dir string) error {
	sd, err := windows.SecurityDescriptorFromString(privateSDDL(Me().sid))
	if err != nil {
		return fmt.Errorf("making the access list of %s: %w", dir, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("making the access list of %s: %w", dir, err)
	}
	err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("setting the access list of %s: %w", dir, err)
	}
	return nil
}

// ONonblock is 0: opening a file on Windows never waits for a writer.
const ONonblock = 0

// OpenFile is os.OpenFile that never follows a symbolic link (or other
// reparse point) at name's last element: a link there is an error that
// wraps ErrSymlink. The link itself is opened (FILE_FLAG_OPEN_REPARSE_POINT)
// and refused on its handle, so nothing can be swapped in between. Unlike
// os.OpenFile, the file may be removed while open (FILE_SHARE_DELETE), as
// on Unix: the hub takes a spool file in, and removes it, while its writer
// still has it open.
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	rw := flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR)
	access, disposition := createArgs(openMode{
		read: rw == os.O_RDONLY || rw == os.O_RDWR, write: rw == os.O_WRONLY || rw == os.O_RDWR,
		appendOnly: flag&os.O_APPEND != 0, create: flag&os.O_CREATE != 0, excl: flag&os.O_EXCL != 0, trunc: flag&os.O_TRUNC != 0,
	})
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if perm&0o200 == 0 && flag&os.O_CREATE != 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	// No security attributes: the handle is not inherited (O_CLOEXEC).
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, disposition, attrs|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		windows.CloseHandle(h)
		return nil, symlinkError{&fs.PathError{Op: "open", Path: name, Err: errors.New("it is a symbolic link")}}
	}
	return os.NewFile(uintptr(h), name), nil
}

// fileStandardInfo is FILE_STANDARD_INFO (winbase.h).
type fileStandardInfo struct {
	AllocationSize int64
	EndOfFile      int64
	NumberOfLinks  uint32
	DeletePending  bool
	Directory      bool
}

// Links returns the size of the open file f and how many names it has: 0
// once it was removed (a file removed while open is pending deletion, or
// has no name left where the file system deletes the POSIX way).
func Links(f *os.File) (size int64, links int, err error) {
	var st fileStandardInfo
	if err := windows.GetFileInformationByHandleEx(windows.Handle(f.Fd()), windows.FileStandardInfo,
		(*byte)(unsafe.Pointer(&st)), uint32(unsafe.Sizeof(st))); err != nil {
		return 0, 0, err
	}
	if st.DeletePending {
		return st.EndOfFile, 0, nil
	}
	return st.EndOfFile, int(st.NumberOfLinks), nil
}

// Writable returns nil when this process may write to the file at path,
// else why not: it is opened for writing (nothing is written) and closed.
func Writable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// FreeSpace is the space free to this user on the volume holding dir.
func FreeSpace(dir string) (int64, bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var avail, total, free uint64
	if windows.GetDiskFreeSpaceEx(p, &avail, &total, &free) != nil {
		return 0, false
	}
	return int64(avail), true
}
