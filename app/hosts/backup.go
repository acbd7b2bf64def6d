package hosts

import (
	"cmp"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The backups WriteFile makes beside a config, named
// "PATH.elicitray-backup-YYYYMMDD-HHMMSS", with "-2", "-3"… after the
// time for a second and third in the same second.

const backupInfix = ".elicitray-backup-"

const backupStamp = "20060102-150405"

// backupSuffix is what follows PATH.elicitray-backup- in a backup's name.
var backupSuffix = regexp.MustCompile(`^(\d{8}-\d{6})(?:-(\d+))?$`)

func backupName(path string, now time.Time, n int) string {
	name := path + backupInfix + now.Format(backupStamp)
	if n > 1 {
		name += "-" + strconv.Itoa(n)
	}
	return name
}

// Backups returns the backups WriteFile made of the file at path, newest
// first (by the time in their names, then their number). Files that only
// look like them (another suffix, a directory) are not listed.
func Backups(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	ents, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return nil, err
	}
	type backup struct {
		name  string
		stamp string
		n     int
	}
	var found []backup
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), base+backupInfix)
		m := backupSuffix.FindStringSubmatch(rest)
		if !ok || m == nil || !e.Type().IsRegular() {
			continue
		}
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		found = append(found, backup{filepath.Join(dir, e.Name()), m[1], n})
	}
	slices.SortFunc(found, func(a, b backup) int {
		return cmp.Or(strings.Compare(b.stamp, a.stamp), b.n-a.n)
	})
	out := make([]string, len(found))
	for i, b := range found {
		out[i] = b.name
	}
	return out, nil
}

// Earlier yields the contents of the file's backups, newest first, reading
// each only when asked for it; one that cannot be read is left out. It is
// what UnwrapOptions.Earlier wants.
func Earlier(path string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		names, _ := Backups(path)
		for _, name := range names {
			data, err := ReadConfig(name)
			if err != nil {
				continue
			}
			if !yield(data) {
				return
			}
		}
	}
}
