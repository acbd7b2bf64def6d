package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/elicitray/elicitray/app/platform"
)

// TestFromEnvHome: ELICITRAY_HOME puts every file under it, the socket and
// the lock in its run directory, whatever else the environment says.
func TestFromEnvHome(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "h")
	env := map[string]string{"ELICITRAY_HOME": home, "HOME": "/elsewhere"}
	p := FromEnv(func(k string) string { return env[k] })
	for what, got := range map[string]string{
		"config": p.Config, "history": p.History, "hub log": p.HubLog,
		"socket": filepath.Dir(p.Socket), "lock": filepath.Dir(p.Lock), "auth": filepath.Dir(p.Auth),
	} {
		want := home
		if what == "socket" || what == "lock" {
			want = filepath.Join(home, "run")
		}
		if filepath.Dir(got) != want && got != want {
			t.Errorf("%s is %s, want it in %s", what, got, want)
		}
	}
	if !reflect.DeepEqual(p, Under(home)) {
		t.Errorf("FromEnv = %+v, want Under(%s) = %+v", p, home, Under(home))
	}
}

// TestHomeDirFromHOME: HOME, which every host passes on, is the home.
func TestHomeDirFromHOME(t *testing.T) {
	t.Parallel()
	if got := HomeDir(func(k string) string { return map[string]string{"HOME": "/home/someone"}[k] }); got != "/home/someone" {
		t.Errorf("HomeDir = %q, want /home/someone", got)
	}
	if got := HomeDir(func(string) string { return "" }); got == "" {
		t.Error("without HOME, HomeDir is empty; want the password database's home")
	}
}

// TestMakePrivateDir: a missing directory is made private; a link in its
// place is refused, never followed.
func TestMakePrivateDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	if err := MakePrivateDir("the hub's directory", dir); err != nil {
		t.Fatalf("a new directory: %v", err)
	}
	if err := CheckRunDir(dir); err != nil {
		t.Errorf("the directory made: %v", err)
	}
	if err := CheckRunDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v, want it not to exist", err)
	}
	if platform.UnderWine() {
		t.Skip("Wine 8 makes os.Symlink a Unix symbolic link, which Go's Windows build takes for the directory")
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	err := MakePrivateDir("the hub's directory", link)
	if !errors.Is(err, ErrUntrusted) {
		t.Errorf("a link: %v, want it refused", err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := CheckRunDir(dir); !errors.Is(err, ErrUntrusted) {
			t.Errorf("a directory others may enter: %v, want it refused", err)
		}
	}
}
