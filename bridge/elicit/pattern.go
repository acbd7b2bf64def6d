package elicit

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// patternTimeout bounds one match of a "pattern" against one value. JSON
// Schema patterns are ECMA-262 regular expressions, which need a
// backtracking engine whose worst case is exponential: a server's pattern
// must not freeze the wrapper or the hub. A match that runs out of time
// counts as "does not match". regexp2 reads its clock every 100 ms, so a
// match is cut between 100 and 200 ms.
const patternTimeout = 100 * time.Millisecond

// parsePatternBudget bounds the time Parse spends matching the schema's own
// values (defaults, choices) against its patterns, so a schema whose every
// value takes just under patternTimeout still parses in bounded time.
const parsePatternBudget = time.Second

// Sizes of the caches below. Both are cleared when full: they exist so the
// ui's check on every keystroke does not redo slow work, not to remember.
const (
	maxCachedPatterns   = 256
	maxCachedPatternLen = 1024 // longer patterns are compiled on each use
	maxCachedMatches    = 4096
)

// compilePattern compiles a JSON Schema "pattern". JSON Schema 2020-12
// (core §6.4) says patterns are ECMA-262 regular expressions and SHOULD be
// built with the "u" flag, so that is tried first; without it ECMA-262
// Annex B accepts more (identity escapes such as \_), which hand-written
// patterns rely on. Go's regexp is RE2 and refuses lookaround, which real
// schemas use (zod's email pattern starts with (?!\.)).
func compilePattern(p string) (*regexp2.Regexp, error) {
	if re, ok := compiledPatterns.get(p); ok {
		return re, nil
	}
	re, err := regexp2.Compile(p, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		var err2 error
		if re, err2 = regexp2.Compile(p, regexp2.ECMAScript); err2 != nil {
			return nil, err
		}
	}
	re.MatchTimeout = patternTimeout
	if len(p) <= maxCachedPatternLen {
		compiledPatterns.put(p, re)
	}
	return re, nil
}

// verdict is the outcome of matching a value against a pattern.
type verdict uint8

const (
	noMatch    verdict = iota
	matched            // the pattern matches somewhere in the value (patterns are not anchored)
	tooSlow            // the match ran out of time or stack: treated as no match
	badPattern         // the pattern does not compile
)

// matchPattern matches s against the pattern p. Field checks and the final
// check both come here, so they agree even about a match that runs out of
// time: the verdict is remembered, not measured twice.
func matchPattern(p, s string) verdict {
	v, _ := matchCost(p, s)
	return v
}

// matchCost is matchPattern that also returns how long the match took when
// it was first run, remembered or not, so Parse's budget does not depend on
// what an earlier Parse left in the cache.
func matchCost(p, s string) (verdict, time.Duration) {
	re, err := compilePattern(p)
	if err != nil {
		return badPattern, 0
	}
	m := match(re, s)
	return m.verdict, m.cost
}

// outcome is a remembered match.
type outcome struct {
	verdict verdict
	cost    time.Duration
}

func match(re *regexp2.Regexp, s string) outcome {
	key := matchKey(re.String(), s)
	if m, ok := matches.get(key); ok {
		return m
	}
	start := time.Now()
	ok, err := re.MatchString(s)
	m := outcome{noMatch, time.Since(start)}
	switch {
	case err != nil:
		m.verdict = tooSlow
	case ok:
		m.verdict = matched
	}
	matches.put(key, m)
	return m
}

// matchKey hashes the pattern and the value, so the cache holds neither.
func matchKey(p, s string) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(p))
	h.Write([]byte{0})
	h.Write([]byte(s))
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

var (
	compiledPatterns = newCache[string, *regexp2.Regexp](maxCachedPatterns)
	matches          = newCache[[sha256.Size]byte, outcome](maxCachedMatches)
)

// cache is a map that forgets everything when it is full.
type cache[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	m   map[K]V
}

func newCache[K comparable, V any](size int) *cache[K, V] {
	return &cache[K, V]{max: size, m: make(map[K]V)}
}

func (c *cache[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *cache[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}

// schemaPattern is a compiled pattern for the JSON Schema validator.
type schemaPattern struct{ re *regexp2.Regexp }

func (p schemaPattern) String() string { return p.re.String() }

// MatchString reports a match; a match that runs out of time does not
// match, as in Field.Check.
func (p schemaPattern) MatchString(s string) bool { return match(p.re, s).verdict == matched }

// regexpEngine gives the final check the patterns Field.Check uses.
func regexpEngine(s string) (jsonschema.Regexp, error) {
	re, err := compilePattern(s)
	if err != nil {
		return nil, err
	}
	return schemaPattern{re}, nil
}

var _ jsonschema.RegexpEngine = regexpEngine
