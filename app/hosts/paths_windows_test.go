package hosts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHostsPathsWindows: where each host's config is for a Windows user
// whose name has a space and letters beyond ASCII, with the paths as
// Windows gives them (%USERPROFILE%, %APPDATA%).
func TestHostsPathsWindows(t *testing.T) {
	home := `C:\Users\Zoë Ångström`
	env := Env{Home: home, AppData: home + `\AppData\Roaming`, Project: `D:\work\my project`, GOOS: "windows"}
	want := map[string]string{
		"claude-desktop/user": home + `\AppData\Roaming\Claude\claude_desktop_config.json`,
		"claude-code/user":    home + `\.claude.json`,
		"claude-code/local":   home + `\.claude.json`,
		"claude-code/project": `D:\work\my project\.mcp.json`,
		"vscode/user":         home + `\AppData\Roaming\Code\User\mcp.json`,
		"vscode/workspace":    `D:\work\my project\.vscode\mcp.json`,
		"cursor/user":         home + `\.cursor\mcp.json`,
		"cursor/project":      `D:\work\my project\.cursor\mcp.json`,
		"windsurf/user":       home + `\.codeium\windsurf\mcp_config.json`,
		"zed/user":            home + `\AppData\Roaming\Zed\settings.json`,
		"codex/user":          home + `\.codex\config.toml`,
		"gemini/user":         home + `\.gemini\settings.json`,
		"gemini/project":      `D:\work\my project\.gemini\settings.json`,
	}
	got := map[string]string{}
	for _, h := range Hosts() {
		for _, l := range h.Locations(env) {
			got[l.Host+"/"+l.Scope] = l.Path
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths mismatch (-want +got):\n%s", diff)
	}
}
