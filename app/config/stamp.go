package config

import "os"

// Stamp tells one version of the config file from another: its
// size and time, and which file it is. The time alone misses a save in
// the same tick of the file system's coarse clock (a few milliseconds)
// that kept the size; a save renames a new file over the old (Save,
// and most editors), which the file's identity tells.
type Stamp struct {
	fi os.FileInfo // nil: there is no file
}

// StampOf is the stamp of the file at path as it is now.
func StampOf(path string) Stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}
	}
	// On Windows the file's identity (volume and index) is read only when
	// os.SameFile first needs it, from whatever file has the name then:
	// after a rename over the config, both stamps would read the new file's
	// and a change of the same size in the same clock tick would go unseen
	// (found under Wine). Asking now reads it now; elsewhere it is in fi.
	os.SameFile(fi, fi)
	return Stamp{fi}
}

// Empty reports whether there is no file, or an empty one.
func (s Stamp) Empty() bool { return s.fi == nil || s.fi.Size() == 0 }

// Same reports whether s and o stamp the same version of the file.
func (s Stamp) Same(o Stamp) bool {
	if s.fi == nil || o.fi == nil {
		return s.fi == nil && o.fi == nil
	}
	return s.fi.Size() == o.fi.Size() && s.fi.ModTime().Equal(o.fi.ModTime()) && os.SameFile(s.fi, o.fi)
}
