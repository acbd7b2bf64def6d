//go:build linux

package e2e

import (
	"testing"
)

// rtlMessage mixes Arabic, Hebrew, Chinese, punctuation, numbers and Latin
// words: Fyne alone drew the words either side of each colon, slash and
// number swapped (issue 24).
const rtlMessage = "ملاحظة: تم النسخ الاحتياطي\n" +
	"שלום / مرحبا\n" +
	"الإصدار 2.0.1 جاهز؛ افتح report.pdf (3 ملفات)\n" +
	"服务名：数据库（生产）"

// TestEndToEndRightToLeft shows a prompt and then the history window with
// right-to-left text through the real wrapper and hub under Xvfb, and
// keeps their pictures (`make screenshots`: docs/rtl-prompt.png,
// docs/rtl-history.png). The server gets its own values back and the
// history keeps the message as sent: only what is drawn is reordered.
func TestEndToEndRightToLeft(t *testing.T) {
	d := newParallelDesktop(t)
	cs := d.connectAsk("backups")
	call := d.callWith(cs, "ask", map[string]any{
		"message": rtlMessage,
		"schema": `{"type":"object","properties":{
			"version":{"type":"string","title":"الإصدار 2.0.1","default":"2.0.1"},
			"db":{"type":"string","title":"מסד נתונים (ראשי)","default":"main","oneOf":[
				{"const":"main","title":"שלום / مرحبا"},{"const":"prod","title":"Production (إنتاج)"}]},
			"name":{"type":"string","title":"服务名：数据库（生产）"}}}`,
	})
	win, _ := d.window()
	d.screenshot("rtl-prompt.png")
	d.answer(win, "Return")
	if got, want := d.result(call), `{"action":"accept","content":{"db":"main","version":"2.0.1"}}`; got != want {
		t.Errorf("the server received %s, want %s", got, want)
	}
	if rec := d.history()[0]; rec.Message != rtlMessage {
		t.Errorf("history keeps the message as %q, want it as sent", rec.Message)
	}

	if out, err := d.binCmd("history", "window").CombinedOutput(); err != nil {
		t.Fatalf("history window: %v: %s", err, out)
	}
	hwin, _ := d.window()
	d.settle() // the first row drawn, to click
	d.xdo("mousemove", "--window", hwin, "400", "107", "click", "1")
	d.screenshot("rtl-history.png")
	if out, err := d.binCmd("quit").CombinedOutput(); err != nil {
		t.Errorf("quit: %v: %s", err, out)
	}
}
