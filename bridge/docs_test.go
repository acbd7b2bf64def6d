package bridge

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The module's documentation is docs/ and the README beside go.mod; this
// package's tests run in bridge/.
const moduleRoot = ".."

// mdDoc is one Markdown file as a citation or a link sees it.
type mdDoc struct {
	text     string            // the file in lower case, emphasis marks dropped, whitespace as single spaces
	numbers  map[string]bool   // "7", "7.3": the numbers headings start with
	sections map[string]string // "7": the text under heading 7 and its 7.M, as text is
	headings map[string]bool   // each heading's text in lower case, emphasis marks dropped
	anchors  map[string]bool   // GitHub's #anchor of each heading
}

var headingNumber = regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?\s`)

func readDoc(t *testing.T, path string) *mdDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := &mdDoc{numbers: map[string]bool{}, sections: map[string]string{}, headings: map[string]bool{}, anchors: map[string]bool{}}
	seen := map[string]int{}
	section := ""
	for _, line := range proseLines(string(data)) {
		h := strings.TrimLeft(line, "#")
		if len(h) == len(line) || len(line)-len(h) > 6 || !strings.HasPrefix(h, " ") {
			if section != "" {
				d.sections[section] += " " + strings.ToLower(plain(line))
			}
			continue
		}
		h = plain(strings.TrimSpace(h))
		d.headings[strings.ToLower(h)] = true
		section = ""
		if m := headingNumber.FindStringSubmatch(h); m != nil {
			d.numbers[m[1]] = true
			section, _, _ = strings.Cut(m[1], ".")
		}
		a := anchor(h)
		if n := seen[a]; n > 0 {
			d.anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			d.anchors[a] = true
		}
		seen[a]++
	}
	d.text = strings.ToLower(plain(string(data)))
	return d
}

// proseLines are the lines of a Markdown file outside its fenced code.
func proseLines(md string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// plain is s without Markdown's emphasis and code marks, its whitespace
// runs one space.
func plain(s string) string {
	s = strings.NewReplacer("**", "", "`", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// anchor is the #fragment GitHub gives a heading: lower case, only letters,
// digits, '-' and '_' kept, each space a '-'.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docs reads docs/*.md and README.md, keyed by their path from the module's
// root: docs/PROTOCOL.md, README.md.
func docs(t *testing.T) map[string]*mdDoc {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "*.md"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	out := map[string]*mdDoc{}
	for _, name := range append(names, filepath.Join(moduleRoot, "README.md")) {
		rel, _ := filepath.Rel(moduleRoot, name)
		out[filepath.ToSlash(rel)] = readDoc(t, name)
	}
	return out
}

// citation finds what Go code cites of docs/: a file's name (README.md is
// the root's, any other is in docs/, with or without "docs/"), then a
// section ("§7", "§7.3", "§4–§6"), a quote in double quotes after a comma,
// a colon or a space, or both. A name right after a '/' or a word is another
// directory's file (bench/README.md) and not docs/'s.
var citation = regexp.MustCompile(`(?:^|[^\w./-])((?:docs/)?[A-Za-z][\w-]*\.md)\b(?:\s*§(\d+(?:\.\d+)*)(?:\s*[–-]\s*§?(\d+(?:\.\d+)*))?)?(?:[,:]?\s*"([^"\s,][^"]*)")?`)

// bareSection is a section number right after a file's name, without its §.
var bareSection = regexp.MustCompile(`^ \d`)

// goText is one comment group or string literal of a Go file: its text and
// where each of its lines is in the file.
type goText struct {
	text  string
	lines []int // lines[i]: the file's line of text's line i
}

func (g goText) line(offset int) int {
	return g.lines[strings.Count(g.text[:offset], "\n")]
}

// goTexts are the comments, each group joined, and then the string
// literals of a Go file; comments is how many of them are comments.
func goTexts(fset *token.FileSet, f *ast.File) (out []goText, comments int) {
	for _, cg := range f.Comments {
		var g goText
		for _, c := range cg.List {
			body := strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*")
			body = strings.TrimSuffix(body, "*/")
			start := fset.Position(c.Slash).Line
			for i, l := range strings.Split(body, "\n") {
				if g.lines != nil {
					g.text += "\n"
				}
				g.text += l
				g.lines = append(g.lines, start+i)
			}
		}
		out = append(out, g)
	}
	comments = len(out)
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		start := fset.Position(lit.Pos()).Line
		g := goText{text: s}
		for i := 0; i <= strings.Count(s, "\n"); i++ {
			g.lines = append(g.lines, start+i)
		}
		out = append(out, g)
		return true
	})
	return out, comments
}

// unresolved says why a citation of doc does not resolve, or "".
func unresolved(all map[string]*mdDoc, name string, sections []string, quote string) string {
	path := name
	if !strings.HasPrefix(path, "docs/") && path != "README.md" {
		path = "docs/" + name
	}
	d, ok := all[path]
	if !ok {
		return path + " does not exist"
	}
	for _, s := range sections {
		if s != "" && !d.numbers[s] {
			return path + " has no heading numbered " + s
		}
	}
	if quote == "" {
		return ""
	}
	q := strings.ToLower(plain(strings.TrimRight(quote, ".,;: ")))
	if s := sections[0]; s != "" {
		top, _, _ := strings.Cut(s, ".")
		if !strings.Contains(d.sections[top], q) {
			return path + " §" + top + " does not say " + strconv.Quote(q)
		}
		return ""
	}
	if d.headings[q] || strings.Contains(d.text, q) {
		return ""
	}
	return path + " has no heading and no sentence " + strconv.Quote(q)
}

// TestDocsCitations: each citation of docs/ in the module's Go code,
// comments and strings, resolves: the file is in docs/, a "§N" or "§N.M"
// is the number of one of its headings, a quote after a section is in that
// section, and any other quote is one of its headings or in its text. Code
// that cites a rule leads a reader to it from a clean clone. A file a
// comment names by its path (app/hub/hub.go) exists.
func TestDocsCitations(t *testing.T) {
	t.Parallel()
	all := docs(t)
	fset := token.NewFileSet()
	cited := 0
	err := filepath.WalkDir(moduleRoot, func(path string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			// Gone while walked: a build's scratch directory (make
			// package, run by a test beside this one, makes fyne's
			// tmp-pkg in the checkout and removes it).
			return nil
		}
		if err != nil {
			return err
		}
		if e.IsDir() {
			if n := e.Name(); path != moduleRoot && (n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		texts, comments := goTexts(fset, f)
		for i, g := range texts {
			if i < comments {
				// A comment that names a file of the repository by its path
				// leads to it (strings may name files a test makes).
				for _, m := range sourcePath.FindAllStringSubmatchIndex(g.text, -1) {
					p := g.text[m[2]:m[3]]
					if _, err := os.Stat(filepath.Join(moduleRoot, p)); err != nil {
						t.Errorf("%s:%d: %s does not exist", filepath.ToSlash(rel), g.line(m[2]), p)
					}
				}
			}
			for _, m := range citation.FindAllStringSubmatchIndex(g.text, -1) {
				sub := func(i int) string {
					if m[2*i] < 0 {
						return ""
					}
					return g.text[m[2*i]:m[2*i+1]]
				}
				cited++
				if rest := g.text[m[3]:]; bareSection.MatchString(rest) {
					t.Errorf("%s:%d: %s cites a section without its §", filepath.ToSlash(rel), g.line(m[2]), sub(1))
					continue
				}
				if why := unresolved(all, sub(1), []string{sub(2), sub(3)}, sub(4)); why != "" {
					t.Errorf("%s:%d: %s", filepath.ToSlash(rel), g.line(m[2]), why)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d citations of docs/ resolved", cited)
	if cited < 300 {
		t.Errorf("found %d citations of docs/ in the code; the code has more than 300", cited)
	}
}

// mdLink is a Markdown link's or image's target: [text](target) or a
// reference definition "[name]: target".
var mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s+(\S+)`)

// sourcePath is a file of the repository named by its path in prose:
// app/hub/hub.go, testdata/npm/tshost.mjs.
var sourcePath = regexp.MustCompile(`(?:^|[^\w./-])((?:app|bridge|history|ui|chars|bench|testdata|assets|packaging)/[\w./-]*\.(?:go|s|md|mjs|txtar|json|toml|png|svg))\b`)

// TestDocsLinks: every relative link in README.md and docs/*.md leads to a
// file, and one with #anchor to a heading of the Markdown file it names;
// every source file they name by its path exists, so that code moved
// elsewhere takes its docs along.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	all := docs(t)
	for path := range all {
		data, err := os.ReadFile(filepath.Join(moduleRoot, path))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range sourcePath.FindAllStringSubmatch(line, -1) {
				if _, err := os.Stat(filepath.Join(moduleRoot, m[1])); err != nil {
					t.Errorf("%s:%d: %s does not exist", path, i+1, m[1])
				}
			}
		}
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(stripCode(line), -1) {
				target := m[1] + m[2]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.ToSlash(filepath.Join(filepath.Dir(path), file))
					if _, err := os.Stat(filepath.Join(moduleRoot, dest)); err != nil {
						t.Errorf("%s:%d: %s does not exist", path, i+1, target)
						continue
					}
				}
				if frag == "" {
					continue
				}
				d, ok := all[dest]
				if !ok && strings.HasSuffix(dest, ".md") {
					d = readDoc(t, filepath.Join(moduleRoot, dest))
				}
				if d == nil || !d.anchors[frag] {
					t.Errorf("%s:%d: %s has no heading for #%s", path, i+1, dest, frag)
				}
			}
		}
	}
}

// stripCode is a Markdown line without its `code spans`, where brackets are
// not links.
func stripCode(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = ""
	}
	return strings.Join(parts, "`")
}

// TestREADMEFirstMinute: the README stays short and keeps what a newcomer
// needs in the first minute, linking to docs/ for the rest.
func TestREADMEFirstMinute(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n >= 250 {
		t.Errorf("README.md has %d lines; it stays under 250 and links to docs/ for the rest", n)
	}
	for _, want := range []struct{ what, text string }{
		{"a picture", "](docs/prompt.png)"},
		{"the demo", "make demo"},
		{"installing", "make install"},
		{"wrapping a server by hand", "elicitray wrap --name"},
		{"wrapping a host's servers", "elicitray hosts wrap"},
		{"doctor", "elicitray doctor"},
		{"the tests", "make test"},
		{"the architecture", "](docs/how-it-works.md)"},
	} {
		if !strings.Contains(readme, want.text) {
			t.Errorf("README.md lost %s: no %q", want.what, want.text)
		}
	}
}
