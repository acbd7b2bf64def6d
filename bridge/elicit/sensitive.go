package elicit

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Secrets in form mode (PROTOCOL.md §6: "servers must not ask for secrets
// there (passwords, API keys, tokens, payment data). Treat such fields as a
// warning sign"). Parse marks a field Sensitive from its property name,
// title and description, read as words: split at anything that is not a
// letter, digit or mark, at camelCase humps ("apiKey", "APIKey") and
// between letters and digits ("cvv2"), lower-cased, with accents and other
// marks dropped ("contraseña" written with a combining tilde is
// "contrasena"), an apostrophe inside a word dropped ("mother's" is
// "mothers"), invisible characters removed first (so "pass\u200bword" is a
// password too).
//
// A stem below counts when a word contains it ("dbPassword",
// "x-api-key", "Datenbankpasswort") or when neighbouring words spell it
// together ("api key", "API_KEY", "one-time code", "mot de passe"). A
// whole word counts only as a word of its own, or spelt by neighbouring
// words ("2FA" is "2" and "fa"): "pin" is not in "spinner", "opinion" or
// "shipping". Either may take a plural s.
//
// What a clause says not to give is not asked for: the words after "not",
// "never" or "don't", to the end of their clause (. ! ? ; : brackets, a
// line break; not a comma), do not count. server-everything's "Your
// favorite integer (do not give us your phone number, pin, or other
// sensitive info)" asks for no PIN; "Never share it. Enter your PIN" does.
//
// The rules, and the cases they leave out on purpose:
//
//   - Passwords: the stems password, passwd, passphrase and passcode, the
//     words pwd and pw; and the words for password in other languages:
//     Passwort and Kennwort (German), wachtwoord (Dutch), mot de passe
//     (French), contraseña and clave de acceso (Spanish), senha and
//     palavra-passe (Portuguese), parola d'ordine (Italian, which says
//     password too), hasło (Polish), heslo (Czech, Slovak), lösenord
//     (Swedish), adgangskode (Danish), passord (Norwegian), salasana
//     (Finnish), jelszó (Hungarian), şifre (Turkish), κωδικός (Greek),
//     пароль (Russian, Ukrainian), كلمة المرور and كلمة السر (Arabic), رمز
//     عبور (Persian), סיסמה (Hebrew), पासवर्ड (Hindi), รหัสผ่าน (Thai),
//     mật khẩu (Vietnamese), kata sandi (Indonesian), 密码 and 密碼
//     (Chinese), 口令, パスワード (Japanese), 비밀번호 (Korean). Except
//     "passwordless", which names a way to do without one.
//   - Keys: apikey, privatekey, privkey, secretkey, accesskey, signingkey,
//     encryptionkey, masterkey, consumerkey, licensekey, productkey,
//     recoverykey, backupkey.
//   - Words ending in token or secret, with an s or not: "token",
//     "accessToken", "githubtoken", "client_secret", "Client secret",
//     "secrets". "tokenizer", "tokenize" and "secretary" do not end so and
//     are no secrets.
//   - A token word is no secret when it is counted: when one of the two
//     words before it is a quantity (max, maximum, min, minimum, num,
//     number, total, many, most, least, remaining; and a language model's
//     input, output, prompt, completion, cached, reasoning), or the word
//     starts with one ("maxtokens"), or the word after it is count, limit,
//     budget or usage. "max_tokens" of a language model, "Maximum number of
//     tokens", "token_limit" and "How many tokens" are token counts, not
//     bearer tokens. The lists are short on purpose: "the token used to
//     sign in" or "one token per environment" must stay secrets.
//   - Sessions and sign-in headers: the stems sessionid, sessid,
//     sessionkey, sessioncookie, authheader, authorizationheader,
//     basicauth; the words bearer and jwt; the word cookie, except before
//     name, domain, path, policy, consent, banner, settings, preferences
//     and the like ("cookie_domain" is configuration); the word credential,
//     except before name, type, id, provider, helper, file, path, store or
//     manager.
//   - PINs: the word pin (a PIN, "bank_pin", "PIN code", "UPI PIN"), mpin
//     and tpin, Geheimzahl (German), 暗証番号 (Japanese). Except "PIN
//     code" beside postal, address, delivery, shipping, area, city, zip or
//     post: in India that is a postal code.
//   - One-time and verification codes: the words otp, totp, hotp, otpauth,
//     2fa, mfa; "code" after verification, verify, security, auth,
//     authentication, authenticator, authorization, 2fa, mfa, otp, totp,
//     sms, login, signin, access, confirmation, recovery, backup, reset,
//     unlock, activation, one-time, digit ("6-digit code"), secret or pin;
//     "code" followed by sent, texted or emailed ("the code we sent you"),
//     or by authenticator; 验证码, 驗證碼, 認証コード, 인증번호, 인증코드.
//     "code" alone is no secret, nor "country code", "zip code", "postal
//     code", "language code", "promo code" or "source code".
//   - Bank accounts: the word iban, the stems sortcode and bankaccount
//     (except before name, holder, type, owner, currency or country), and
//     account, acct, routing, aba, transit, bsb and card followed by
//     number, no, num, nr or nbr ("account_number", "Routing no"). Not
//     "account" alone, "account name" or "account type".
//   - Payment cards: creditcard, debitcard, cardnumber, cardno, cardnum,
//     ccnumber, ccnum, ccexp; the words cvv, cvc, cvn and csc (card
//     security codes); an expiry (expiry, expiration, exp, expires, expire, valid
//     thru) with a card (card, cc, credit, debit) or MM/YY in the same
//     text: "Card expiry", "Expiry (MM/YY)". Not "Coupon expiry date".
//   - Social security and national id numbers: the word ssn; the stems
//     socialsecurity, socialinsurance, nationalinsurance, nationalid,
//     nationalidentity, nationalidentification, taxid, taxpayerid,
//     driverslicense (and licence, driver, driving); the words itin, tin,
//     aadhaar, aadhar, cpf, curp, nif, bsn, pesel, personnummer; 身份证,
//     身分證, 주민등록번호, マイナンバー. Not "passport number", which a
//     person gives as often as a name.
//   - Security answers: maidenname ("mother's maiden name"), firstpet,
//     memorableword, memorableinformation, memorableinfo; "answer" with
//     security, secret, memorable or challenge in the same text ("Security
//     question answer", "Answer to your security question").
//   - Recovery phrases and codes: mnemonic, and seed, recovery, backup or
//     wallet followed by phrase, words, code or seed ("seed phrase",
//     "recovery codes", "backup_code"). Not "seed" alone: a random seed.
//   - "format": "password", or "writeOnly": true (JSON Schema's own mark
//     for a value such as a password); a format these rules call a secret
//     by its words: "credit-card", "cc-number", "cc-csc", "iban".
//
// Only fields the user types into are marked: strings, numbers and
// integers. A select or a boolean sends one of the server's own values,
// which can carry no secret the server does not know; "show_password"
// and "pin_to_top" (booleans) and "token_type" and "account_type"
// (selects) are not marked.
//
// It is a heuristic against servers that ask carelessly; a server that
// wants to hide its question can always word it otherwise. A wrongly
// marked field costs a masked entry and a warning; a missed one costs the
// secret in clear in the history, so the rules lean towards marking.

// secretStems count when a word contains one or neighbouring words spell
// one (see above). They are written as words() reads text: lower case, no
// marks; foldWord makes them so once more for the ones written with marks.
var secretStems = []string{
	// Passwords.
	"password", "passwd", "passphrase", "passcode",
	"passwort", "kennwort", "wachtwoord", "motdepasse", "contraseña", "contrasena", "clavedeacceso",
	"palavrapasse", "paroladordine", "hasł", "hasl", "lösenord", "losenord", "adgangskode",
	"passord", "salasana", "jelszó", "jelszo", "jelszav", "şifre", "sifre", "парол",
	"كلمةالمرور", "كلمهالمرور", "كلمةالسر", "رمزعبور", "סיסמה", "סיסמא", "पासवर्ड", "รหัสผ่าน",
	"mậtkhẩu", "matkhau", "katasandi", "密码", "密碼", "口令", "パスワード", "비밀번호",
	// More languages (issue 10, "the common words for password in the major
	// languages"): Catalan, Croatian/Serbian/Bosnian (both scripts),
	// Slovene, Lithuanian, Estonian, Icelandic, Basque, Galician, Bengali,
	// Urdu, Tamil, Telugu, Malay, Swahili, Georgian, Armenian, Kazakh,
	// Mongolian. Not Romanian "parolă", Latvian "parole": Italian "parola"
	// and French "parole" are everyday words.
	"contrasenya", "lozinka", "лозинка", "geslo", "slaptažodis", "slaptazodis", "parool", "lykilorð",
	"pasahitza", "contrasinal", "পাসওয়ার্ড", "پاسورڈ", "கடவுச்சொல்", "పాస్వర్డ్", "katalaluan",
	"nenosiri", "nywila", "პაროლი", "գաղտնաբառ", "құпиясөз", "нууцүг",
	// Keys.
	"apikey", "privatekey", "privkey", "secretkey", "accesskey", "signingkey", "encryptionkey",
	"masterkey", "consumerkey", "licensekey", "licencekey", "productkey", "recoverykey", "backupkey",
	// Sessions and sign-in headers.
	"sessionid", "sessid", "sessionkey", "sessioncookie", "authheader", "authorizationheader", "basicauth",
	// PINs.
	"geheimzahl", "geheimnummer", "暗証番号",
	// One-time and verification codes.
	"验证码", "驗證碼", "認証コード", "인증번호", "인증코드",
	// Bank accounts, payment cards and verification codes in other
	// languages: German, French, Spanish, Italian, Portuguese, Russian,
	// Chinese, Japanese, Korean.
	"kartennummer", "kontonummer", "sicherheitscode", "bestätigungscode", "bestatigungscode",
	"verifizierungscode", "numerodecarte", "numérodecarte", "numerodetarjeta", "númerodetarjeta",
	"numerodocartao", "númerodocartão", "numerodellacarta", "codedeverification", "codedevérification",
	"codigodeverificacion", "códigodeverificación", "codigodeverificacao", "códigodeverificação",
	"codicediverifica",
	"кодподтверждения", "номеркарты", "信用卡号", "银行卡号", "卡号", "安全码", "カード番号",
	"セキュリティコード", "카드번호", "보안코드",
	// Bank accounts and payment cards.
	"accountnumber", "acctnumber", "routingnumber", "sortcode", "creditcard", "debitcard", "cardnumber", "cardno", "cardnum", "ccnumber", "ccnum", "ccexp", "validthru",
	// Social security and national id numbers.
	"socialsecurity", "socialinsurance", "nationalinsurance", "nationalid", "nationalidentity",
	"nationalidentification", "taxid", "taxpayerid", "driverslicense", "driverslicence", "driverlicense",
	"driverlicence", "drivinglicense", "drivinglicence", "身份证", "身分證", "주민등록번호", "マイナンバー",
	"sozialversicherungsnummer", "steueridentifikationsnummer", "steuerid", "codicefiscale",
	"numerodesecuritesociale", "numérodesécuritésociale", "numerodeseguridadsocial",
	"númerodeseguridadsocial", "henkilotunnus", "henkilötunnus", "fodselsnummer", "fødselsnummer", "снилс",
	// Security answers and recovery phrases.
	"maidenname", "maidensname", "firstpet", "memorableword", "memorableinformation", "memorableinfo", "mnemonic",
}

// secretWords count only as words of their own (see above).
var secretWords = []string{
	"pwd", "pw", "senha", "heslo", "hesla", "κωδικός", "κωδικού", "κωδικό", "κωδικοσ", "κωδικου", "κωδικο",
	"bearer", "jwt", "cookie", "credential",
	"pin", "mpin", "tpin",
	"otp", "totp", "hotp", "otpauth", "2fa", "mfa",
	"iban", "bankaccount", "cvv", "cvc", "cvn", "csc",
	"ssn", "itin", "tin", "aadhaar", "aadhar", "cpf", "curp", "nif", "bsn", "pesel", "personnummer",
}

// Phrases made of a qualifier and a word, each a whole word: secret words
// too, spelt out below.
var (
	// codeQualifiers make "code" a secret: "verification code".
	codeQualifiers = []string{
		"verification", "verify", "security", "auth", "authentication", "authenticator", "authorization",
		"2fa", "mfa", "otp", "totp", "sms", "login", "signin", "access", "confirmation", "recovery",
		"backup", "reset", "unlock", "activation", "onetime", "digit", "secret", "pin",
	}
	// numberPrefixes make a number word a secret: "account number".
	numberPrefixes = []string{"account", "acct", "routing", "aba", "transit", "bsb", "card"}
	numberWords    = []string{"number", "no", "num", "nr", "nbr"}
	// phrasePrefixes make a phrase word a secret: "seed phrase".
	phrasePrefixes = []string{"seed", "recovery", "backup", "wallet"}
	phraseWords    = []string{"phrase", "word", "words", "code", "seed"}
)

// notSecretWords contain a stem and are no secret.
var notSecretWords = map[string]bool{"passwordless": true}

// notBefore: a stem or word is no secret when the word after it is one of
// these. Each kind names configuration, not the secret itself.
var notBefore = map[string]map[string]bool{
	"cookie": words2set("name", "domain", "path", "policy", "consent", "banner", "settings", "preferences",
		"preference", "jar", "count", "size", "lifetime", "duration", "samesite"),
	"credential":  words2set("name", "type", "id", "provider", "helper", "file", "path", "store", "manager"),
	"bankaccount": words2set("name", "holder", "type", "owner", "currency", "country"),
	"pin":         words2set("length", "digits", "size"),
}

// Settings of one-time codes, which name no code: "otp_length", "TOTP
// period", "MFA method".
var codeSettings = words2set("length", "digits", "digit", "size", "type", "method", "methods", "channel",
	"enabled", "status", "provider", "device", "period", "interval", "issuer", "algorithm")

func init() {
	for _, w := range []string{"otp", "totp", "hotp", "2fa", "mfa"} {
		notBefore[w] = codeSettings
	}
}

// postalWords beside "PIN code" make it an Indian postal code.
var postalWords = words2set("postal", "address", "delivery", "shipping", "area", "city", "zip", "post", "locality")

// Words for the rules of a whole text: an expiry with a card, a code the
// server sent, an answer to a security question.
var (
	expiryWords      = words2set("expiry", "expiration", "exp", "expires", "expire", "expiring")
	cardWords        = words2set("card", "cc", "credit", "debit")
	codeSentWords    = words2set("sent", "texted", "emailed", "authenticator")
	answerQualifiers = words2set("security", "secret", "memorable", "challenge")
)

// quantityBefore, one of the two words before "token", and quantityAfter,
// the word after it, make it a count of tokens.
var (
	quantityBefore = words2set("max", "maximum", "min", "minimum", "num", "number",
		"total", "many", "most", "least", "remaining",
		// A language model's counts: "input_tokens", "completion tokens".
		"input", "output", "prompt", "completion", "cached", "reasoning")
	quantityAfter = words2set("count", "counts", "limit", "limits", "budget", "usage")
)

func words2set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// The lookup tables, built once from the lists above.
var (
	// stemsByByte holds the secret stems by their first byte, so that
	// finding the stems within a word costs a lookup per byte, however
	// many stems there are: descriptions may be long.
	stemsByByte = map[byte][]string{}
	// spelled maps each stem and whole word to its kind, for runs of
	// words that spell one.
	spelled = map[string]bool{}
)

func init() {
	for _, s := range secretStems {
		s = foldWord(s)
		stemsByByte[s[0]] = append(stemsByByte[s[0]], s)
		spelled[s] = true
	}
	add := func(s string) { spelled[foldWord(s)] = true }
	defer func() {
		for s := range spelled {
			maxSpelled = max(maxSpelled, len(s))
		}
	}()
	for _, w := range secretWords {
		add(w)
	}
	for _, q := range codeQualifiers {
		add(q + "code")
	}
	for _, p := range numberPrefixes {
		for _, n := range numberWords {
			add(p + n)
		}
	}
	for _, p := range phrasePrefixes {
		for _, w := range phraseWords {
			add(p + w)
		}
	}
}

// maxSpelledWords is the most neighbouring words that spell one stem or
// word: "clave de acceso", "one time code".
const maxSpelledWords = 4

// maxSpelled is the length of the longest stem or word, in bytes.
var maxSpelled int

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
	return LooksSecret(fld.Name) || LooksSecret(fld.Title) || LooksSecret(fld.Description) || LooksSecret(fld.Format)
}

// LooksSecret reports whether text (a property name, a title, a
// description) names a secret by the word rules above: "apiKey", "GitHub
// personal access token", "Card CVV", "Bank PIN", "SSN", "One-time code",
// "Passwort" do; "max_tokens", "tokenizer", "Secretary", "Country code",
// "account_type", "spinner" do not. Text is read in NFKC, so that
// "ｐａｓｓｗｏｒｄ" in full-width letters is "password".
func LooksSecret(text string) bool {
	text = norm.NFKC.String(text)
	if strings.IndexAny(text, clauseEnds) < 0 {
		return wordsSecret(words(text))
	}
	// "do not give us your PIN": what a clause says not to give is not
	// asked for. The words of each clause up to its negation are read
	// together, as one text.
	var ws []string
	for clause := range clauses(text) {
		cw := words(clause)
		if n := negation(cw); n >= 0 {
			cw = cw[:n]
		}
		ws = append(ws, cw...)
	}
	return wordsSecret(ws)
}

// clauseEnds end a clause for the negation rule: sentence punctuation,
// brackets and line breaks (not commas: "do not give us your phone number,
// pin, or other sensitive info" is one clause).
const clauseEnds = ".!?;:()[]\n"

// clauses yields the clauses of text.
func clauses(text string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for text != "" {
			i := strings.IndexAny(text, clauseEnds)
			if i < 0 {
				yield(text)
				return
			}
			if i > 0 && !yield(text[:i]) {
				return
			}
			text = text[i+1:]
		}
	}
}

// negationWords say that what follows in the clause is not asked for.
var negationWords = map[string]bool{"not": true, "never": true, "dont": true}

// negation returns the index of the first negation in ws ("don't" is
// split into "don", "t"), or -1.
func negation(ws []string) int {
	for i, w := range ws {
		if negationWords[w] || w == "don" && i+1 < len(ws) && ws[i+1] == "t" {
			return i
		}
	}
	return -1
}

// wordsSecret applies the word rules to ws, the words of a text.
func wordsSecret(ws []string) bool {
	for i, w := range ws {
		if containsStem(w) {
			return true
		}
		if spelledAt(ws, i) {
			return true
		}
		if hasWordSuffix(w, "secret") {
			return true
		}
		if hasWordSuffix(w, "token") && !countsTokens(ws, i) {
			return true
		}
	}
	return wholeTextSecret(ws)
}

// containsStem reports whether w contains a secret stem.
func containsStem(w string) bool {
	if notSecretWords[w] {
		return false
	}
	for j := 0; j < len(w); j++ {
		for _, s := range stemsByByte[w[j]] {
			if strings.HasPrefix(w[j:], s) {
				return true
			}
		}
	}
	return false
}

// containsWordsStem reports whether run, neighbouring words joined,
// contains a stem of several words in a script without case, starting in
// its first word (the first first bytes): Arabic writes "and" and "with"
// onto the next word ("بكلمة المرور"). Latin runs must spell a stem
// exactly: "bypass word" is no password.
func containsWordsStem(run []byte, first int) bool {
	for j := 0; j < first; j++ {
		if run[j] < utf8.RuneSelf {
			continue
		}
		for _, s := range stemsByByte[run[j]] {
			if len(s) > first-j && bytes.HasPrefix(run[j:], []byte(s)) {
				return true
			}
		}
	}
	return false
}

// spelledAt reports whether the words from ws[i] on spell a stem or a
// secret word, or its plural, that the word after does not make
// configuration (notBefore).
func spelledAt(ws []string, i int) bool {
	var buf [64]byte
	run := buf[:0]
	for n := 1; n <= maxSpelledWords && i+n <= len(ws); n++ {
		run = append(run, ws[i+n-1]...)
		if len(run) > maxSpelled+1 {
			return false // longer than any stem or word, plural included
		}
		if n > 1 && containsWordsStem(run, len(ws[i])) {
			return true
		}
		kind, ok := spelledKind(run)
		if !ok {
			continue
		}
		var next string
		if i+n < len(ws) {
			next = ws[i+n]
		}
		if notBefore[kind][next] {
			continue
		}
		if (kind == "pincode" || (kind == "pin" && next == "code")) && anyOf(ws, postalWords) {
			continue
		}
		return true
	}
	return false
}

// spelledKind returns the stem or word run spells, itself or in the
// plural.
func spelledKind(run []byte) (string, bool) {
	if spelled[string(run)] {
		return string(run), true
	}
	if n := len(run); n > 1 && run[n-1] == 's' && spelled[string(run[:n-1])] {
		return string(run[:n-1]), true
	}
	return "", false
}

// wholeTextSecret applies the rules that read the whole text: an expiry
// with a card or MM/YY, a code the server sent, an answer to a security
// question. One pass: descriptions may be long.
func wholeTextSecret(ws []string) bool {
	var expiry, card, mmyy, code, answer, qualified bool
	for i, w := range ws {
		switch {
		case expiryWords[w]:
			expiry = true
		case cardWords[w]:
			card = true
		case w == "mm" && i+1 < len(ws) && ws[i+1] == "yy":
			mmyy = true
		case w == "code" || w == "codes":
			code = true
		case codeSentWords[w]:
			if code { // a code, then "sent"
				return true
			}
		case w == "answer" || w == "answers":
			answer = true
		}
		qualified = qualified || answerQualifiers[w]
	}
	return (expiry && (card || mmyy)) || (answer && qualified)
}

// anyOf reports whether one of ws is in set.
func anyOf(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
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

// words splits text into words as the rules read them (see above): at
// every character that is not a letter, digit or mark, at camelCase humps
// ("dbPassword" → db password, "APIKey" → api key) and between letters and
// digits ("cvv2" → cvv 2); an apostrophe between letters joins them; each
// word is made lower case without marks (foldWord).
func words(text string) []string {
	text, _ = Visible(text)
	rs := []rune(text)
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if w := foldWord(string(rs[start:end])); w != "" {
				out = append(out, w)
			}
		}
		start = -1
	}
	for i, r := range rs {
		letter, digit, mark := unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r)
		if (r == '\'' || r == '\u2019') && start >= 0 && i+1 < len(rs) && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1]) {
			continue // "mother's", "d'ordine": one word, the apostrophe dropped by foldWord
		}
		if !letter && !digit && !mark {
			flush(i)
			continue
		}
		if start >= 0 && !mark {
			prev := rs[i-1]
			hump := unicode.IsLower(prev) && unicode.IsUpper(r)
			// "APIKey": the K starts a word when a lower-case letter follows.
			acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if hump || acronymEnd || (unicode.IsDigit(prev) != digit && !unicode.IsMark(prev)) {
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

// foldWord is w lower-cased, without marks (accents written as combining
// characters, Indic and Thai vowel signs) and apostrophes, with the Greek
// final sigma as a sigma: so text and the lists above compare alike
// however they were written.
func foldWord(w string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsMark(r), r == '\'', r == '\u2019':
			return -1
		case r == 'ς':
			return 'σ'
		}
		return unicode.ToLower(r)
	}, w)
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
