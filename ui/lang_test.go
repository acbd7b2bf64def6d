package ui

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	fynelang "fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/ui/lang"
)

// translatedDirs are the directories of the packages whose user-visible
// strings go through lang: every package of the module that imports
// ui/lang (the windows, tray and menu in ui, the notifications, the doctor
// report and the rest in app/...).
func translatedDirs(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.Dir}} {{join .Imports " "}}`, "../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var dirs []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 && slices.Contains(f[1:], "github.com/elicitray/elicitray/ui/lang") {
			dirs = append(dirs, f[0])
		}
	}
	if len(dirs) < 2 {
		t.Fatalf("go list found %q importing ui/lang:\n%s", dirs, out)
	}
	return dirs
}

// sinks are the calls whose string arguments a user reads, from the
// argument at the index given on: Fyne's widget constructors and setters,
// elicitray's own label helpers, notifications and the doctor report's
// findings (add's first argument is the level, a symbol, or in the history
// pane the English key of a fact).
var sinks = map[string]int{
	"NewLabel": 0, "NewLabelWithStyle": 0, "NewButton": 0, "NewButtonWithIcon": 0,
	"NewCheck": 0, "NewHyperlink": 0, "NewMenuItem": 0, "NewMenu": 0,
	"NewRadioGroup": 0, "NewSelect": 0, "NewWindow": 0, "NewNotification": 0,
	"SetText": 0, "SetTitle": 0, "SetPlaceHolder": 0, "SetOptions": 0,
	"ShowInformation": 0, "NewInformation": 0, "ShowConfirm": 0, "NewConfirm": 0,
	"NewCustom": 0, "NewCustomConfirm": 0, "NewFormItem": 0, "SetDismissText": 0, "SetConfirmText": 0,
	"smallLabel": 0, "lowLabel": 0, "warningLabel": 0, "boldLabel": 0, "heading": 0, "helpLabel": 0,
	"newCloseCheck": 0, "confirm": 0, "newSettingField": 0, "newCloseButton": 0, "newKeyButton": 1,
	"newKeyCheck": 1, "showError": 1, "onError": 0,
	"Notify": 0, "notify": 0, "SetProblem": 0, "add": 1,
}

// dataMarkers are strings with letters that are data, not sentences: the
// history's mark for a secret's value, the same in the window, the CLI and
// exports, and the byte units' symbols (KiB, MiB…).
var dataMarkers = map[string]bool{"[redacted]": true, "%.1f %ciB": true, "KMGTPE": true}

// sinkFields are the struct fields a user reads when a string is assigned
// to them.
var sinkFields = map[string]bool{"Text": true, "PlaceHolder": true, "Title": true, "Content": true,
	"title": true, "body": true} // app's note, a notification

// source is one package's parsed files, and what the scan resolves names
// through: its string constants and variables, and its functions.
type source struct {
	fset  *token.FileSet
	files map[string]*ast.File
	// consts maps a package-level name to the expression it is set to.
	consts map[string]ast.Expr
	funcs  map[string]*ast.FuncDecl
}

func parseSource(t *testing.T, dir string) *source {
	t.Helper()
	s := &source{fset: token.NewFileSet(), files: map[string]*ast.File{}, consts: map[string]ast.Expr{}, funcs: map[string]*ast.FuncDecl{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(s.fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		s.files[name] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					s.funcs[d.Name.Name] = d
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if vs, ok := spec.(*ast.ValueSpec); ok {
						for i, n := range vs.Names {
							// Strings only: an error variable's words are the
							// log's and the command line's too.
							if i < len(vs.Values) {
								if _, ok := s.stringValue(vs.Values[i]); ok {
									s.consts[n.Name] = vs.Values[i]
								}
							}
						}
					}
				}
			}
		}
	}
	return s
}

// langCall reports whether call is lang.L, lang.N or lang.X, and its key.
func langCall(s *source, call *ast.CallExpr) (fn, key string, ok bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", "", false
	}
	// lang.L, or say.L on a lang.Speaker, which code that takes one names
	// say (lang.Speaker).
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "lang" && pkg.Name != "say" || len(call.Args) == 0 {
		return "", "", false
	}
	if !slices.Contains([]string{"L", "N", "X"}, sel.Sel.Name) {
		return "", "", false
	}
	key, _ = s.stringValue(call.Args[0])
	return sel.Sel.Name, key, true
}

// stringValue is the value of a string literal, or of a constant set to one.
func (s *source) stringValue(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			v, err := strconv.Unquote(e.Value)
			return v, err == nil
		}
	case *ast.Ident:
		if c, ok := s.consts[e.Name]; ok {
			return s.stringValue(c)
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			a, ok1 := s.stringValue(e.X)
			b, ok2 := s.stringValue(e.Y)
			return a + b, ok1 && ok2
		}
	case *ast.ParenExpr:
		return s.stringValue(e.X)
	}
	return "", false
}

// keysUsed are the keys of every lang call in s, by function (L, N, X).
func keysUsed(t *testing.T, s *source) map[string]string {
	used := map[string]string{}
	for _, f := range s.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn, key, ok := langCall(s, call); ok {
				if key == "" {
					t.Errorf("%s: lang.%s with a key that is not a constant string", s.fset.Position(call.Pos()), fn)
					return true
				}
				used[key] = fn
			}
			return true
		})
	}
	return used
}

// wordy reports whether s reads as words to a user (two letters or more),
// rather than punctuation or spacing between translated parts, or the "X"
// a line's height is measured with. The app's name is the same in every
// language.
func wordy(s string) bool {
	if s == "elicitray" {
		return false
	}
	s = formatVerb.ReplaceAllString(s, "")
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

// untranslated returns the strings with letters that reach e without going
// through lang: literals, constants, local variables assigned in fn, and
// what the package's own functions that e calls return.
func (s *source) untranslated(e ast.Expr, fn *ast.FuncDecl, seen map[string]bool) []string {
	var found []string
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if _, _, ok := langCall(s, n); ok {
				return false
			}
			if id, ok := n.Fun.(*ast.Ident); ok {
				// The text a function of the same file makes for the
				// call (promptTitle, countdownText); not an error's, whose
				// words are the log's and the command line's too.
				if d, ok := s.funcs[id.Name]; ok && !seen[id.Name] && d.Body != nil && !returnsError(d) &&
					s.fset.Position(d.Pos()).Filename == s.fset.Position(n.Pos()).Filename {
					seen[id.Name] = true
					ast.Inspect(d.Body, func(m ast.Node) bool {
						if r, ok := m.(*ast.ReturnStmt); ok {
							for _, x := range r.Results {
								found = append(found, s.untranslated(x, d, seen)...)
							}
						}
						_, lit := m.(*ast.FuncLit)
						return !lit
					})
				}
			}
			// A sprintf's format is the text; the rest are its arguments.
			return true
		case *ast.BasicLit:
			if v, ok := s.stringValue(n); ok && wordy(v) && !dataMarkers[v] {
				found = append(found, v)
			}
		case *ast.Ident:
			if c, ok := s.consts[n.Name]; ok && !seen[n.Name] {
				seen[n.Name] = true
				found = append(found, s.untranslated(c, nil, seen)...)
			} else if fn != nil && !seen[n.Name] {
				seen[n.Name] = true
				for _, rhs := range localAssignments(fn, n.Name) {
					found = append(found, s.untranslated(rhs, fn, seen)...)
				}
			}
		case *ast.CompositeLit, *ast.FuncLit:
			return false
		}
		return true
	})
	return found
}

// returnsError reports whether fn returns an error.
func returnsError(fn *ast.FuncDecl) bool {
	if fn.Type.Results == nil {
		return false
	}
	for _, r := range fn.Type.Results.List {
		if id, ok := r.Type.(*ast.Ident); ok && id.Name == "error" {
			return true
		}
	}
	return false
}

// localAssignments are the expressions name is set to inside fn.
func localAssignments(fn *ast.FuncDecl, name string) []ast.Expr {
	var out []ast.Expr
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name && len(n.Rhs) == len(n.Lhs) {
					out = append(out, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if id.Name == name && i < len(n.Values) {
					out = append(out, n.Values[i])
				}
			}
		}
		return true
	})
	return out
}

func calleeName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func readTranslations(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := translations.ReadFile("translations/" + name)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// formatVerb is a Printf verb, which reads as no word.
var formatVerb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

var templateVar = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

// templateVars are the names a translation's template fills in.
func templateVars(v any) []string {
	var texts []string
	switch v := v.(type) {
	case string:
		texts = []string{v}
	case map[string]any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				texts = append(texts, s)
			}
		}
	}
	var names []string
	for _, s := range texts {
		for _, m := range templateVar.FindAllStringSubmatch(s, -1) {
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// TestEveryShownStringIsTranslated fails when elicitray shows a user
// something of its own that a Chinese reader would get in English: a string
// with letters handed to a widget, a notification or the doctor report
// without going through lang, or a lang key with no entry in en.json or
// zh_Hans.json. Entries no code uses fail too, so that the files stay what
// the windows say.
func TestEveryShownStringIsTranslated(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("it reads the source with go list, which the Windows test binary has not under Wine; the source is the same on Linux, which runs it")
	}
	used := map[string]string{}
	for _, dir := range translatedDirs(t) {
		s := parseSource(t, dir)
		for k, fn := range keysUsed(t, s) {
			used[k] = fn
		}
		for _, f := range s.files {
			var fn *ast.FuncDecl
			ast.Inspect(f, func(n ast.Node) bool {
				var args []ast.Expr
				switch n := n.(type) {
				case *ast.FuncDecl:
					fn = n
				case *ast.CallExpr:
					first, ok := sinks[calleeName(n)]
					if !ok || first >= len(n.Args) {
						return true
					}
					args = n.Args[first:]
				case *ast.AssignStmt:
					for i, l := range n.Lhs {
						if sel, ok := l.(*ast.SelectorExpr); ok && sinkFields[sel.Sel.Name] && len(n.Rhs) == len(n.Lhs) {
							args = append(args, n.Rhs[i])
						}
					}
				case *ast.KeyValueExpr:
					if k, ok := n.Key.(*ast.Ident); ok && sinkFields[k.Name] {
						args = []ast.Expr{n.Value}
					}
				}
				for _, a := range args {
					for _, str := range s.untranslated(a, fn, map[string]bool{}) {
						t.Errorf("%s: %q is shown without lang", s.fset.Position(a.Pos()), str)
					}
				}
				return true
			})
		}
	}

	for _, file := range []string{"en.json", "zh_Hans.json"} {
		tr := readTranslations(t, file)
		for k, fn := range used {
			v, ok := tr[k]
			if !ok {
				t.Errorf("%s: no translation of %q (lang.%s)", file, k, fn)
				continue
			}
			if _, plural := v.(map[string]any); plural != (fn == "N") {
				t.Errorf("%s: %q is used with lang.%s; its entry's plural forms do not match", file, k, fn)
			}
			if diff := cmp.Diff(templateVars(k), templateVars(v)); fn != "X" && diff != "" {
				t.Errorf("%s: %q fills in other names than its key (-want +got):\n%s", file, k, diff)
			}
		}
		for k := range tr {
			if _, ok := used[k]; !ok {
				t.Errorf("%s: %q is translated but no code shows it", file, k)
			}
		}
	}
}

// withLocale loads the translations as a process started with env (LANG,
// LC_ALL, LANGUAGE…; the others unset) would, and puts the test's own
// language back afterwards.
func withLocale(t *testing.T, env map[string]string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("on Windows the language is the user's display language, not the environment's (go-locale asks the system): the catalogs are the same on Linux, which runs it")
	}
	// Cleanups run last first: this one after t.Setenv's restores.
	t.Cleanup(loadTranslations)
	for _, k := range []string{"LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"} {
		t.Setenv(k, env[k])
	}
	loadTranslations()
}

// TestPromptSpeaksTheUsersLanguage: a prompt's title, buttons and status
// line are in the language the environment names, as the window process
// started with it reads them, and the server's own text is left as the
// server wrote it. C, as a bare container's shell has, is English.
func TestPromptSpeaksTheUsersLanguage(t *testing.T) {
	test.NewTempApp(t)
	for _, tt := range []struct {
		name string
		env  map[string]string
		want []string // title, Cancel, Decline, Submit, the mute check box
	}{
		{"zh_CN", map[string]string{"LANG": "zh_CN.UTF-8"},
			[]string{"elicitray — 部署 发来请求", "取消", "拒绝", "提交", "一小时内不再询问"}},
		{"LC_ALL over LANG", map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"},
			[]string{"elicitray — 部署 发来请求", "取消", "拒绝", "提交", "一小时内不再询问"}},
		{"LANGUAGE", map[string]string{"LANG": "en_GB.UTF-8", "LANGUAGE": "zh_CN:en"},
			[]string{"elicitray — 部署 发来请求", "取消", "拒绝", "提交", "一小时内不再询问"}},
		{"C", map[string]string{"LANG": "C"},
			[]string{"elicitray — 部署 asks", "Cancel", "Decline", "Submit", "Don't ask again for an hour"}},
		{"C.UTF-8", map[string]string{"LANG": "C.UTF-8"},
			[]string{"elicitray — 部署 asks", "Cancel", "Decline", "Submit", "Don't ask again for an hour"}},
		// A language Fyne speaks and elicitray does not: English
		// throughout, never Fyne's "Annuler" beside "Decline".
		{"fr_FR", map[string]string{"LANG": "fr_FR.UTF-8"},
			[]string{"elicitray — 部署 asks", "Cancel", "Decline", "Submit", "Don't ask again for an hour"}},
		{"de_DE", map[string]string{"LANG": "de_DE.UTF-8"},
			[]string{"elicitray — 部署 asks", "Cancel", "Decline", "Submit", "Don't ask again for an hour"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			withLocale(t, tt.env)
			v := newPromptView(&Prompt{Server: "部署", Message: "Submit the release? Decline to keep 1.4."}, func(Answer) {})
			test.NewTempWindow(t, v.content)
			got := []string{promptTitle("部署"), v.cancel.Text, v.decline.Text, v.submit.Text, v.mute.Text}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if texts := visibleTexts(v.content); !contains(texts, "Submit the release? Decline to keep 1.4.") {
				t.Errorf("the server's message is not shown as it wrote it; the window reads %q", texts)
			}
		})
	}
}

// TestReasonsTranslated: the reasons the hub records for decisions no
// person made (app/hub/policy.go, hub.go, remember_hub.go and
// app/journal/journal.go write them so)
// read in English exactly as recorded, and in Chinese for a Chinese user,
// the names, numbers and times they quote as recorded; a reason the table
// does not know (an error quoted from the system) stays as kept.
func TestReasonsTranslated(t *testing.T) {
	reasons := []string{
		"all prompts are paused",
		"部署助手 is muted until 14:05",
		"github asked more than 5 times in a row; its limit is one prompt every 3s",
		"github asked more than 1 time in a row; its limit is one prompt every 1h0m0s",
		"nobody answered within 10m0s",
		"nobody answered within 8s: it waited behind other prompts and was never shown",
		"the rule for github is decline",
		"the rule for ci is accept-defaults, and the form's required fields all have defaults: they were sent",
		`answered by remembered rule 3 for shop: accept {"city":"Lisbon"} (you chose "Always answer this way" on 5 Dec 2026 22:35; it holds until 4 Jan 2027 22:35; ` + "`elicitray rules forget 3`" + ` undoes it)`,
		"the server cancelled the request",
		"the wrapper stopped",
		"the wrapper went away (it crashed or was killed) before anyone answered; its server got no answer",
		"the wrapper ended (it crashed or was killed) before it passed the answer on to the server",
		"the wrapper stopped before the answer was written to the server",
		"a message for the server was not sent: its input was already closed (the host has gone, or the server stopped)",
		"the server exited before anyone answered",
		"the tool call ended before the answer",
		"the server could not be reached, so the tool call ended before anyone answered",
		"the host or the server stopped",
		"sending the server a response: nothing is listening there (connection refused)",
	}
	withLocale(t, map[string]string{"LANG": "en_US.UTF-8"})
	for _, r := range reasons {
		if got := recordReason(r); got != r {
			t.Errorf("in English %q reads %q", r, got)
		}
	}
	if got := recordReason("open /x: permission denied"); got != "open /x: permission denied" {
		t.Errorf("an unknown reason became %q", got)
	}
	withLocale(t, map[string]string{"LANG": "zh_CN.UTF-8"})
	for _, r := range reasons {
		got := recordReason(r)
		if !strings.ContainsFunc(got, func(c rune) bool { return unicode.Is(unicode.Han, c) }) || got == r {
			t.Errorf("a Chinese user reads %q", got)
		}
	}
	// Kept before it read "1 time": translated all the same.
	if got := recordReason("github asked more than 1 times in a row; its limit is one prompt every 3s"); !strings.Contains(got, "连续询问超过 1 次") {
		t.Errorf("an older record's reason reads %q", got)
	}
	if got := recordReason(reasons[8]); !strings.Contains(got, `accept {"city":"Lisbon"}`) || !strings.Contains(got, "4 Jan 2027 22:35") {
		t.Errorf("the remembered rule's reason lost what it quotes: %q", got)
	}
}

// TestFyneSpeaksAsElicitray: Fyne's lang, which draws Fyne's own words in
// a window, and ui/lang, which says elicitray's everywhere, choose the same
// language from every environment, plurals included.
func TestFyneSpeaksAsElicitray(t *testing.T) {
	for _, env := range []map[string]string{
		{"LANG": "en_US.UTF-8"}, {"LANG": "zh_CN.UTF-8"}, {"LANG": "zh_TW.UTF-8"}, {"LANG": "C"}, {},
		{"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, {"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_US.UTF-8"},
		{"LANG": "en_GB.UTF-8", "LANGUAGE": "zh_CN:en"}, {"LANG": "en_GB.UTF-8", "LANGUAGE": "fr_FR:zh_CN"},
		{"LANG": "en_GB.UTF-8", "LANGUAGE": "ja:zh_CN"}, {"LANG": "fr_FR.UTF-8"}, {"LANG": "pt_BR.UTF-8"}, {"LANG": "ja_JP.UTF-8"},
	} {
		withLocale(t, env)
		key := " and {{.Count}} decisions waiting in the spool"
		fyne := []string{fynelang.L("Cancel"), fynelang.L("Decline")}
		ours := []string{lang.L("Cancel"), lang.L("Decline")}
		for _, n := range []int{0, 1, 2} {
			fyne = append(fyne, fynelang.N(key, n, lang.Count(n)))
			ours = append(ours, lang.N(key, n, lang.Count(n)))
		}
		if diff := cmp.Diff(fyne, ours); diff != "" {
			t.Errorf("%v: ui/lang speaks otherwise than Fyne's lang (-fyne +ui/lang):\n%s", env, diff)
		}
	}
}
