//go:build linux

package e2e

import (
	"strings"
	"testing"
)

// TestWindowsInChineseOnDesktop (issue 24): a user whose session says
// LANG=zh_CN.UTF-8 gets the real binary's prompt, History and Settings
// windows in Simplified Chinese — the language reaches the hub a wrapper
// starts, and its window process — while the server's own text stays as the
// server wrote it. `make screenshots` keeps the pictures (docs/zh-*.png).
func TestWindowsInChineseOnDesktop(t *testing.T) {
	d := newParallelDesktop(t)
	d.setenv("LC_ALL=", "LC_MESSAGES=", "LANGUAGE=", "LANG=zh_CN.UTF-8") // inherited by the wrapper, the hub and its windows
	seedRealistic(t, d.paths.History, 12)
	cs := d.connectAsk("deploy")

	call := d.callWith(cs, "ask", map[string]any{
		"message": "将 billing-api 部署到生产环境？请确认下面的参数。",
		// Keys in the order the form shows them (the ask server's map sorts
		// them), the name first, where typing goes.
		"schema": `{"type":"object","properties":{` +
			`"app":{"type":"string","title":"服务名","description":"要部署的服务"},` +
			`"replicas":{"type":"integer","title":"副本数","minimum":1,"maximum":10,"default":2},` +
			`"env":{"type":"string","title":"环境","oneOf":[{"const":"dev","title":"开发"},{"const":"staging","title":"staging"},{"const":"prod","title":"生产"}]},` +
			`"rollback":{"type":"boolean","title":"失败时回滚","default":true}},` +
			`"required":["app","replicas"]}`,
	})
	win, _ := d.window()
	if got, want := d.title(win), "elicitray — deploy 发来请求"; got != want {
		t.Errorf("prompt window title %q, want %q", got, want)
	}
	d.typeInto(win, "billing-api")
	d.screenshot("zh-prompt.png")
	d.answer(win, "Escape")
	if got := d.result(call); got != `{"action":"cancel"}` {
		t.Errorf("the server received %s", got)
	}

	for _, tt := range []struct{ command, title, picture string }{
		{"history window", "elicitray — 历史记录", "zh-history.png"},
		{"settings", "elicitray 设置", "zh-settings.png"},
	} {
		if out, err := d.binCmd(strings.Fields(tt.command)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", tt.command, err, out)
		}
		win, _ := d.window()
		if got := d.title(win); got != tt.title {
			t.Errorf("%s opened %q, want %q", tt.command, got, tt.title)
		}
		if tt.picture == "zh-history.png" {
			// The newest row, the prompt above, with its form in the pane.
			d.xdo("mousemove", "--window", win, "400", "100", "click", "1")
		}
		d.screenshot(tt.picture)
		if tt.picture == "zh-history.png" {
			d.answer(win, "Escape") // one window at a time; quit closes the last
		}
	}
	if out, err := d.binCmd("quit").CombinedOutput(); err != nil {
		t.Errorf("quit: %v: %s", err, out)
	}
}
