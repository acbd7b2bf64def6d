package bridge

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// Secrets never reach history (PROTOCOL.md §6, DESIGN.md): the record
// builder passes what a record keeps of the server's request through these
// before anything is written. A secret field's values are replaced by
// Redacted wherever the requestedSchema carries them, and a URL-mode link
// keeps its shape with its tokens replaced. Each is a splice, so what is
// left is the server's text byte for byte, in the server's order.

// Redacted stands in history for a secret value: the answer to a
// secret-looking field, what its schema offered or suggested, a token in a
// link.
const Redacted = "[redacted]"

// SecretProperties returns the names of the properties of schema whose
// values are secrets: the fields form marks Sensitive, and every other
// property but a boolean whose name, title or description looks like a
// secret (elicit.LooksSecret), or that says "format": "password" or
// "writeOnly": true. So a choice among PINs counts, and a schema elicit
// refused (form nil) is still read. Names are in schema order; nil when
// none.
func SecretProperties(schema json.RawMessage, form *elicit.Form) []string {
	var names []string
	if form != nil {
		names = form.Sensitive()
	}
	props, ok := getMember(schema, "properties")
	if !ok {
		return names
	}
	ms, err := members(props)
	if err != nil {
		return names
	}
	for _, m := range ms {
		prop := props[m.vStart:m.vEnd]
		if !slices.Contains(names, m.key) && secretProperty(m.key, prop) {
			names = append(names, m.key)
		}
	}
	return names
}

// secretProperty reports whether the property name, of schema prop, is a
// secret by its own words: not a boolean, and its name, title or
// description looks like a secret, or its format does ("credit-card"), or
// it says "format": "password" or "writeOnly": true.
func secretProperty(name string, prop []byte) bool {
	if stringMember(prop, "type") == "boolean" {
		return false
	}
	writeOnly, _ := getMember(prop, "writeOnly")
	return elicit.LooksSecret(name) || elicit.LooksSecret(stringMember(prop, "title")) ||
		elicit.LooksSecret(stringMember(prop, "description")) || elicit.LooksSecret(stringMember(prop, "format")) ||
		strings.EqualFold(stringMember(prop, "format"), "password") || string(writeOnly) == "true"
}

// maxRedactRefs bounds the definitions a secret property's "$ref"s lead
// to, each redacted once.
const maxRedactRefs = 64

// RedactSchema returns schema with every value its properties named secret
// could carry replaced by Redacted: "default", "const", each of "enum" and
// "examples", the "const" of each "oneOf" or "anyOf" choice, at any depth
// ("items", "allOf"), and in the definitions their "$ref"s point to. The
// same goes for the properties of nested objects, of "if", "then",
// "else", "not", "dependentSchemas", "patternProperties" and
// "additionalProperties" that are secret by their own words
// (secretProperty), and for their members in an object's own "default",
// "const", "enum" and "examples". Labels ("title", "enumNames") and every
// other byte stay as the server wrote them. The values of a list are
// numbered ("[redacted 1]") so that a choice keeps its options apart and
// the history window can still show the form. A schema whose secret
// property cannot be edited (its JSON does not scan), or that leads to
// more than maxRedactRefs definitions, is kept as the marker alone: losing
// its shape is better than keeping a secret.
func RedactSchema(schema json.RawMessage, secret []string) json.RawMessage {
	if len(schema) == 0 {
		return schema
	}
	whole := appendQuoted(nil, Redacted)
	var refs []string
	out, err := redactObject(nil, schema, secret, &refs, 0)
	if err != nil {
		if len(secret) == 0 {
			return schema
		}
		return whole
	}
	if string(out) == string(schema) {
		out = schema
	}
	done := map[string]bool{}
	for n := 0; n < len(refs); n++ {
		if done[refs[n]] {
			continue
		}
		if done[refs[n]] = true; len(done) > maxRedactRefs {
			return whole
		}
		path, ok := refPath(refs[n])
		if !ok {
			continue
		}
		if out, err = editAt(out, path, func(def []byte) []byte {
			return redactSchemaValues(nil, def, Redacted, &refs, 0)
		}); err != nil {
			return whole
		}
	}
	return out
}

// maxRedactDepth is how deeply a secret property's schema is read: past it
// the value is the marker whole. Each level scans what is under it, so
// the depth bounds the cost at a few scans of the schema; MCP's forms are
// two or three levels deep.
const maxRedactDepth = 32

// redactObject appends to dst the schema s of an object whose properties
// named secret, and those secret by their own words, are redacted
// (redactSchemaValues), and so on in the schemas that say more of the
// same object ("if", "allOf", …) and of the objects under it. A schema
// that is not an object is kept.
func redactObject(dst, s []byte, secret []string, refs *[]string, depth int) ([]byte, error) {
	if first(s) != '{' {
		return append(dst, s...), nil
	}
	if depth > maxRedactDepth {
		return appendQuoted(dst, Redacted), nil
	}
	ms, err := members(s)
	if err != nil {
		return nil, err
	}
	if props, ok := getMember(s, "properties"); ok {
		if pms, err := members(props); err == nil {
			for _, m := range pms {
				if !slices.Contains(secret, m.key) && secretProperty(m.key, props[m.vStart:m.vEnd]) {
					secret = append(slices.Clip(secret), m.key)
				}
			}
		}
	}
	// same is a schema of this object, under is one of an object under it.
	same := func(dst, v []byte) ([]byte, error) { return redactObject(dst, v, secret, refs, depth+1) }
	under := func(dst, v []byte) ([]byte, error) { return redactObject(dst, v, nil, refs, depth+1) }
	prev := 0
	for _, m := range ms {
		dst = append(dst, s[prev:m.vStart]...)
		prev = m.vEnd
		v := s[m.vStart:m.vEnd]
		switch m.key {
		case "properties":
			dst, err = eachMember(dst, v, func(dst []byte, key string, p []byte) ([]byte, error) {
				if slices.Contains(secret, key) {
					return redactSchemaValues(dst, p, Redacted, refs, 0), nil
				}
				return under(dst, p)
			})
		case "patternProperties":
			dst, err = eachMember(dst, v, func(dst []byte, key string, p []byte) ([]byte, error) {
				if secretProperty(key, p) {
					return redactSchemaValues(dst, p, Redacted, refs, 0), nil
				}
				return under(dst, p)
			})
		case "additionalProperties":
			if first(v) == '{' && secretProperty("", v) {
				dst = redactSchemaValues(dst, v, Redacted, refs, 0)
			} else {
				dst, err = under(dst, v)
			}
		case "$defs", "definitions":
			dst, err = eachMember(dst, v, func(dst []byte, _ string, p []byte) ([]byte, error) { return under(dst, p) })
		case "dependentSchemas":
			dst, err = eachMember(dst, v, func(dst []byte, _ string, p []byte) ([]byte, error) { return same(dst, p) })
		case "if", "then", "else", "not":
			dst, err = same(dst, v)
		case "allOf", "anyOf", "oneOf":
			dst = eachElement(dst, v, func(dst, e []byte, _, _ int) []byte {
				if err == nil {
					dst, err = same(dst, e)
				}
				return dst
			})
		case "items", "additionalItems", "contains":
			dst, err = under(dst, v)
		case "default", "const":
			dst = redactInstance(dst, v, secret, depth)
		case "enum", "examples":
			dst = eachElement(dst, v, func(dst, e []byte, _, _ int) []byte {
				return redactInstance(dst, e, secret, depth)
			})
		default:
			dst = append(dst, v...)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(dst, s[prev:]...), nil
}

// eachMember appends to dst the JSON object obj with each member's value
// replaced by what edit appends; obj as it is when it is not an object.
func eachMember(dst, obj []byte, edit func(dst []byte, key string, v []byte) ([]byte, error)) ([]byte, error) {
	if first(obj) != '{' {
		return append(dst, obj...), nil
	}
	ms, err := members(obj)
	if err != nil {
		return nil, err
	}
	prev := 0
	for _, m := range ms {
		dst = append(dst, obj[prev:m.vStart]...)
		if dst, err = edit(dst, m.key, obj[m.vStart:m.vEnd]); err != nil {
			return nil, err
		}
		prev = m.vEnd
	}
	return append(dst, obj[prev:]...), nil
}

// redactInstance appends to dst the value v an object's schema offers
// ("default": {"pin": "4821"}) with the members named secret, or whose
// names look like a secret at any depth, replaced by Redacted.
func redactInstance(dst, v []byte, secret []string, depth int) []byte {
	if depth > maxRedactDepth {
		return appendQuoted(dst, Redacted)
	}
	switch first(v) {
	case '[':
		return eachElement(dst, v, func(dst, e []byte, _, _ int) []byte {
			return redactInstance(dst, e, nil, depth+1)
		})
	case '{':
	default:
		return append(dst, v...)
	}
	out, err := eachMember(dst, v, func(dst []byte, key string, e []byte) ([]byte, error) {
		if slices.Contains(secret, key) || elicit.LooksSecret(key) {
			return appendQuoted(dst, Redacted), nil
		}
		return redactInstance(dst, e, nil, depth+1), nil
	})
	if err != nil {
		return appendQuoted(dst, Redacted)
	}
	return out
}

// redactSchemaValues appends to dst the schema s with the values it could
// carry replaced, const by marker, and adds the "$ref"s in it to refs. One
// pass, forward: a list of 100,000 choices costs a scan, not 100,000
// copies.
func redactSchemaValues(dst, s []byte, marker string, refs *[]string, depth int) []byte {
	if depth > maxRedactDepth {
		return appendQuoted(dst, Redacted)
	}
	switch first(s) {
	case '[':
		return eachElement(dst, s, func(dst, e []byte, _, _ int) []byte {
			return redactSchemaValues(dst, e, marker, refs, depth+1)
		})
	case '{':
	default:
		return append(dst, s...)
	}
	ms, err := members(s)
	if err != nil {
		return appendQuoted(dst, Redacted)
	}
	prev := 0
	for _, m := range ms {
		dst = append(dst, s[prev:m.vStart]...)
		prev = m.vEnd
		v := s[m.vStart:m.vEnd]
		switch m.key {
		case "default":
			dst = redactValue(dst, v, Redacted)
		case "const":
			dst = redactValue(dst, v, marker)
		case "enum", "examples":
			dst = redactValue(dst, v, "")
		case "oneOf", "anyOf":
			// Each choice's const is numbered apart, as enum's values are.
			dst = eachElement(dst, v, func(dst, e []byte, i, n int) []byte {
				return redactSchemaValues(dst, e, numbered(i, n), refs, depth+1)
			})
		case "$ref":
			var ref string
			if json.Unmarshal(v, &ref) == nil {
				*refs = append(*refs, ref)
			}
			dst = append(dst, v...)
		case "title", "description", "enumNames", "type", "format":
			dst = append(dst, v...)
		default:
			dst = redactSchemaValues(dst, v, Redacted, refs, depth+1)
		}
	}
	return append(dst, s[prev:]...)
}

// redactValue appends to dst the value v replaced by marker, or for a list
// each of its values, numbered when marker is "" and there are several.
func redactValue(dst, v []byte, marker string) []byte {
	if first(v) != '[' {
		if marker == "" {
			marker = Redacted
		}
		return appendQuoted(dst, marker)
	}
	return eachElement(dst, v, func(dst, _ []byte, i, n int) []byte {
		if marker == "" {
			return appendQuoted(dst, numbered(i, n))
		}
		return appendQuoted(dst, marker)
	})
}

// eachElement appends to dst the JSON array arr with each of its n
// values, the ith e, replaced by what edit appends; arr as it is when it
// is not an array.
func eachElement(dst, arr []byte, edit func(dst, e []byte, i, n int) []byte) []byte {
	els := elements(arr)
	if els == nil {
		return append(dst, arr...)
	}
	prev := 0
	for i, e := range els {
		dst = append(dst, arr[prev:e[0]]...)
		dst = edit(dst, arr[e[0]:e[1]], i, len(els))
		prev = e[1]
	}
	return append(dst, arr[prev:]...)
}

func numbered(i, n int) string {
	if n < 2 {
		return Redacted
	}
	return "[redacted " + strconv.Itoa(i+1) + "]"
}

// appendQuoted appends the marker s as a JSON string: it has nothing to
// escape.
func appendQuoted(dst []byte, s string) []byte {
	return append(append(append(dst, '"'), s...), '"')
}

func first(b []byte) byte {
	if i := skipSpace(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// elements lists the values of the JSON array arr as offsets, in order;
// nil when arr is not an array.
func elements(arr []byte) [][2]int {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return nil
	}
	var els [][2]int
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return els
	}
	for i < len(arr) {
		end, err := skipValue(arr, i)
		if err != nil || end == i {
			return nil
		}
		els = append(els, [2]int{i, end})
		i = skipSpace(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			break
		}
		i = skipSpace(arr, i+1)
	}
	return els
}

// refPath is the members a "$ref" inside the document names ("#/$defs/pin"
// is $defs, pin); false for the root itself and for other documents, which
// the schema does not carry.
func refPath(ref string) ([]string, bool) {
	frag, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	path := strings.Split(frag, "/")
	for i, p := range path {
		path[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return path, true
}

// editAt returns doc with the value at path replaced by what edit makes of
// it; doc itself when path leads nowhere.
func editAt(doc []byte, path []string, edit func([]byte) []byte) ([]byte, error) {
	if len(path) == 0 {
		return edit(doc), nil
	}
	var start, end int
	if first(doc) == '[' {
		i, err := strconv.Atoi(path[0])
		els := elements(doc)
		if err != nil || i < 0 || i >= len(els) {
			return doc, nil
		}
		start, end = els[i][0], els[i][1]
	} else {
		ms, err := members(doc)
		if err != nil {
			return doc, nil
		}
		i := slices.IndexFunc(ms, func(m member) bool { return m.key == path[0] })
		if i < 0 {
			return doc, nil
		}
		start, end = ms[i].vStart, ms[i].vEnd
	}
	v, err := editAt(doc[start:end], path[1:], edit)
	if err != nil {
		return nil, err
	}
	return concat(doc[:start], v, doc[end:]), nil
}

// secretParams are the query parameter names, lower-cased without
// separators, that carry a credential whole; names ending in one of
// secretParamEnds do too, and any elicit.LooksSecret takes.
var (
	secretParams = []string{"code", "key", "sig", "auth", "pass", "pwd", "sid", "otp", "jwt",
		"session", "sessionid", "ticket", "assertion", "samlresponse"}
	secretParamEnds = []string{"token", "secret", "key", "password", "passwd", "signature",
		"credential", "credentials", "authorization"}
	// A name ending so says what kind a credential is, or when it ends:
	// "token_type", "token_type_hint", "key_expires".
	plainParamEnds = []string{"type", "hint", "method", "expires", "expiresin", "expiry", "uri", "url"}
)

// secretParam reports whether a link's parameter (or fragment member) named
// name carries a credential: "access_token", "code", "X-Amz-Signature",
// "sig", "apiKey", "auth", "client_secret", "verification_code".
// "code_challenge", "state", "redirect_uri", "token_type" and "client_id"
// do not.
func secretParam(name string) bool {
	flat, plain := plainName(name)
	if plain {
		return false
	}
	if slices.Contains(secretParams, flat) || elicit.LooksSecret(name) {
		return true
	}
	return slices.ContainsFunc(secretParamEnds, func(end string) bool { return strings.HasSuffix(flat, end) })
}

// plainName returns name lower-cased without separators, and whether it
// ends in one of plainParamEnds: it names a credential's kind or where it
// goes, not the credential.
func plainName(name string) (flat string, plain bool) {
	flat = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(name))
	return flat, slices.ContainsFunc(plainParamEnds, func(end string) bool { return strings.HasSuffix(flat, end) })
}

// RedactURL returns the URL-mode link raw with the credentials it carries
// replaced by Redacted: the password of its userinfo (or a user name given
// alone that looks like a token, looksLikeToken), and the value of each
// query parameter, or fragment member, that is a credential: named like
// one (secretParam), or looking like a token (redactParams). Its scheme,
// host, path and parameter names stay as the server wrote them, so history
// still says where the link went. The link is read as text, not parsed,
// so that one net/url refuses keeps its shape too.
func RedactURL(raw string) string {
	rest, frag, hasFrag := strings.Cut(raw, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	var b strings.Builder
	b.WriteString(redactUserinfo(rest))
	if hasQuery {
		b.WriteString("?" + redactParams(query))
	}
	if hasFrag {
		b.WriteString("#" + redactParams(frag))
	}
	return b.String()
}

// redactUserinfo is the part of a link before its query, its userinfo's
// secret replaced.
func redactUserinfo(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	authority, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return s
	}
	// Brackets are not allowed in userinfo: the marker is escaped there.
	marker := url.PathEscape(Redacted)
	user, _, hasPass := strings.Cut(authority[:at], ":")
	switch {
	case hasPass:
		user += ":" + marker
	case looksLikeToken(user):
		user = marker
	}
	return scheme + "://" + user + authority[at:] + path
}

// looksLikeToken reports whether a user name given alone is a token (git's
// https://ghp_…@github.com): 16 characters or more, letters and digits
// mixed. A name such as "user" or "ada.lovelace" is not.
func looksLikeToken(user string) bool {
	return utf8.RuneCountInString(user) >= 16 && strings.ContainsAny(user, "0123456789") &&
		strings.IndexFunc(user, unicode.IsLetter) >= 0
}

// redactParams is the query (or fragment) q with the values of its secret
// parameters replaced; a fragment that is not name=value pairs stays.
// Parameters are separated by "&" or ";". A value is secret when its
// parameter's name says so (secretParam), when it looks like a token
// (looksLikeToken), or when it is the only parameter and its name is one
// letter ("?t=…"); a value that is itself a link (an escaped "return_url")
// keeps its shape with its own tokens replaced, escaped again.
func redactParams(q string) string {
	var b strings.Builder
	lone := strings.Count(q, "&")+strings.Count(q, ";") == 0
	for q != "" {
		i := strings.IndexAny(q, "&;")
		if i < 0 {
			i = len(q)
		}
		b.WriteString(redactParam(q[:i], lone))
		if i < len(q) {
			b.WriteByte(q[i])
			i++
		}
		q = q[i:]
	}
	return b.String()
}

// redactParam is the parameter p (name=value) with its value redacted
// when it is secret (redactParams).
func redactParam(p string, lone bool) string {
	name, value, ok := strings.Cut(p, "=")
	if !ok {
		return p
	}
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	v, err := url.QueryUnescape(value)
	if err != nil {
		v = value
	}
	switch {
	case v == Redacted:
		return p
	case secretParam(name) || tokenValue(v) || lone && utf8.RuneCountInString(name) == 1 && len(v) >= 8:
		return p[:len(p)-len(value)] + Redacted
	case strings.ContainsAny(v, "?#") && v != value:
		if r := RedactURL(v); r != v {
			return p[:len(p)-len(value)] + url.QueryEscape(r)
		}
	}
	return p
}

// tokenValue reports whether a parameter's value is a token whatever its
// name: it looks like one (looksLikeToken), with at least four digits and
// four letters as random text has, and only the characters tokens are
// written in (letters, digits, "-", "_", ".", "~", "+", "/", "="), so that
// a link, a sentence or a name such as "c10-url-error-accept" is not.
func tokenValue(v string) bool {
	digits, letters := 0, 0
	for _, r := range v {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
		case !strings.ContainsRune("-_.~+/=", r):
			return false
		}
	}
	return digits >= 4 && letters >= 4 && looksLikeToken(v)
}
