package elicit

import (
	"bytes"
	"strings"
	"unicode"
)

// Secrets in form mode (PROTOCOL.md §6: "servers must not ask for secrets
// there (passwords, API keys, tokens, payment data). Treat such fields as a
// warning sign"). Parse marks a field Sensitive from its property name,
// title and description, read as words: split at anything that is not a
// letter or digit, at camelCase humps ("apiKey", "APIKey") and between
// letters and digits ("cvv2"), lower-cased, invisible characters removed
// first (so "pass\u200bword" is a password too).
//
// The rules, and the cases they leave out on purpose:
//
//   - Words containing password, passwd, passphrase, apikey, privatekey,
//     creditcard or cardnumber: "dbPassword", "newpassword", "x-api-key".
//     Two neighbouring words that join into one of them count too: "api
//     key", "API_KEY", "private key", "credit card", "card number". Except
//     "passwordless", which names a way to do without one.
//   - Words ending in token or secret, with an s or not: "token",
//     "accessToken", "githubtoken", "client_secret", "secrets". "tokenizer",
//     "tokenize" and "secretary" do not end so and are no secrets.
//   - A token word is no secret when it is counted: when one of the two
//     words before it is a quantity (max, maximum, min, minimum, num,
//     number, total, many, most, least, remaining), or the word starts
//     with one ("maxtokens"), or the word after it is count, limit, budget
//     or usage. "max_tokens" of a language model, "Maximum number of
//     tokens", "token_limit" and "How many tokens" are token counts, not
//     bearer tokens. The lists are short on purpose: "the token used to
//     sign in" or "one token per environment" must stay secrets.
//   - The words cvv, cvc and cvn (card security codes).
//   - "format": "password", or "writeOnly": true (JSON Schema's own mark
//     for a value such as a password).
//
// Only fields the user types into are marked: strings, numbers and
// integers. A select or a boolean sends one of the server's own values,
// which can carry no secret the server does not know; "show_password"
// (a boolean) and "token_type" (a select) are not marked.
//
// It is a heuristic against servers that ask carelessly; a server that
// wants to hide its question can always word it otherwise. A wrongly
// marked field costs a masked entry and a warning; a missed one costs the
// secret in clear in the history, so the rules lean towards marking.

// secretStems are the stems a word may contain, or two neighbouring words
// may spell together.
var secretStems = []string{"password", "passwd", "passphrase", "apikey", "privatekey", "creditcard", "cardnumber"}

// notSecretWords contain a stem and are no secret.
var notSecretWords = map[string]bool{"passwordless": true}

// secretWords are secrets as whole words only.
var secretWords = map[string]bool{"cvv": true, "cvc": true, "cvn": true}

// quantityBefore, one of the two words before "token", and quantityAfter,
// the word after it, make it a count of tokens.
var (
	quantityBefore = map[string]bool{
		"max": true, "maximum": true, "min": true, "minimum": true, "num": true, "number": true,
		"total": true, "many": true, "most": true, "least": true, "remaining": true,
	}
	quantityAfter = map[string]bool{
		"count": true, "counts": true, "limit": true, "limits": true, "budget": true, "usage": true,
	}
)

// isSensitive reports whether fld, parsed from obj, asks for a secret (see
// the rules above).
func isSensitive(fld *Field, obj schemaObject) bool {
	switch fld.Kind {
	case KindString, KindNumber, KindInteger:
	default:
		return false
	}
	if strings.EqualFold(fld.Format, "password") || string(bytes.TrimSpace(obj["writeOnly"])) == "true" {
		return true
	}
	return LooksSecret(fld.Name) || LooksSecret(fld.Title) || LooksSecret(fld.Description)
}

// LooksSecret reports whether text (a property name, a title, a
// description) names a secret by the word rules above: "apiKey", "GitHub
// personal access token", "Card CVV" do; "max_tokens", "tokenizer",
// "Secretary" do not.
func LooksSecret(text string) bool {
	ws := words(text)
	for i, w := range ws {
		if secretWords[w] {
			return true
		}
		if !notSecretWords[w] {
			for _, s := range secretStems {
				if strings.Contains(w, s) {
					return true
				}
			}
		}
		if i+1 < len(ws) && isStem(w+ws[i+1]) {
			return true
		}
		if hasWordSuffix(w, "secret") {
			return true
		}
		if hasWordSuffix(w, "token") && !countsTokens(ws, i) {
			return true
		}
	}
	return false
}

// isStem reports whether s is a secret stem, or one in the plural.
func isStem(s string) bool {
	for _, stem := range secretStems {
		if s == stem || s == stem+"s" {
			return true
		}
	}
	return false
}

// hasWordSuffix reports whether w ends in suffix or its plural.
func hasWordSuffix(w, suffix string) bool {
	return strings.HasSuffix(w, suffix) || strings.HasSuffix(w, suffix+"s")
}

// countsTokens reports whether the token word ws[i] is a count of tokens:
// a quantity starts it ("maxtokens") or is among the two words before it,
// or a limit follows it.
func countsTokens(ws []string, i int) bool {
	prefix := strings.TrimSuffix(strings.TrimSuffix(ws[i], "s"), "token")
	if quantityBefore[prefix] {
		return true
	}
	for j := max(i-2, 0); j < i; j++ {
		if quantityBefore[ws[j]] {
			return true
		}
	}
	return i+1 < len(ws) && quantityAfter[ws[i+1]]
}

// words splits text into lower-case words: at every character that is not
// a letter or digit, at camelCase humps ("dbPassword" → db password,
// "APIKey" → api key) and between letters and digits ("cvv2" → cvv 2).
func words(text string) []string {
	text, _ = Visible(text)
	rs := []rune(text)
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		letter, digit := unicode.IsLetter(r), unicode.IsDigit(r)
		if !letter && !digit {
			flush(i)
			continue
		}
		if start >= 0 {
			prev := rs[i-1]
			hump := unicode.IsLower(prev) && unicode.IsUpper(r)
			// "APIKey": the K starts a word when a lower-case letter follows.
			acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if hump || acronymEnd || unicode.IsDigit(prev) != digit {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

// Sensitive returns the names of the fields marked Sensitive, in form
// order, or nil when there are none: the content values to keep out of
// logs and history (PROTOCOL.md §6).
func (f *Form) Sensitive() []string {
	var names []string
	for _, fld := range f.Fields {
		if fld.Sensitive {
			names = append(names, fld.Name)
		}
	}
	return names
}
