package elicit_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

// TestLooksSecret: what a server might call a secret in a name, a title or a
// description, and what only looks like one. A miss keeps a secret in clear
// in the history; a false alarm masks a field and warns for nothing.
func TestLooksSecret(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		// What a clause says not to give is not asked for (server-everything's
		// integer field); what another clause asks for still is.
		{"Your favorite integer (do not give us your phone number, pin, or other sensitive info)", false},
		{"Your favorite colour; don't type a password here", false},
		{"Never share it. Enter your PIN", true},
		{"Choose a new password (do not reuse an old one)", true},
		{"Without a token the upload is anonymous", true},
		// Passwords and passphrases, however they are spelled.
		{"password", true},
		{"Password", true},
		{"PASSWORD", true},
		{"dbPassword", true},
		{"db_password", true},
		{"newpassword", true},
		{"password_confirmation", true},
		{"Your GitHub password", true},
		{"One-time password", true},
		{"passwd", true},
		{"Passphrase for the key", true},
		{"pass phrase", true},
		{"pass\u200bword", true}, // a zero-width space does not hide it
		{"\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44", true}, // nor full-width letters
		{"\uff30\uff29\uff2e", true},
		// API keys and private keys.
		{"apiKey", true},
		{"APIKey", true},
		{"API_KEY", true},
		{"x-api-key", true},
		{"apikey", true},
		{"OpenAI API key", true},
		{"api keys", true},
		{"private_key", true},
		{"SSH private key (PEM)", true},
		// Tokens and secrets.
		{"token", true},
		{"accessToken", true},
		{"GITHUB_TOKEN", true},
		{"githubtoken", true},
		{"refresh_tokens", true},
		{"Personal access token", true},
		{"Paste the token used to sign in", true},
		{"One token per environment", true},
		{"oauth2Token", true},
		{"client_secret", true},
		{"clientSecret", true},
		{"Webhook secret", true},
		{"secrets", true},
		// Payment cards.
		{"credit_card", true},
		{"creditCardNumber", true},
		{"Credit card", true},
		{"card_number", true},
		{"cvv", true},
		{"CVV2", true},
		{"Card CVC", true},

		{"Card expiry", true},
		{"card_expiry", true},
		{"Expiration date of the credit card", true},
		{"Expiry (MM/YY)", true},
		{"cc_exp", true},
		{"ccExpiry", true},
		{"Valid thru", true},
		{"debitCard", true},
		{"Card no.", true},
		{"Security code on the back of the card", true},

		// Other passwords: abbreviations, and the word in other languages.
		{"db_pwd", true},
		{"smtp_pw", true},
		{"passcode", true},
		{"Device passcode", true},
		{"Passwort", true},
		{"Datenbankpasswort", true},
		{"Kennwort", true},
		{"Benutzerkennwort", true},
		{"Contraseña", true},
		{"contrasen\u0303a", true}, // the tilde as a combining mark
		{"contrasena", true},
		{"Clave de acceso", true},
		{"Mot de passe", true},
		{"motDePasse", true},
		{"Senha", true},
		{"Palavra-passe", true},
		{"Parola d'ordine", true},
		{"Parola d’ordine", true},
		{"Password dell'account", true},
		{"Wachtwoord", true},
		{"Hasło", true},
		{"Podaj hasła", true},
		{"haslo", true},
		{"Пароль", true},
		{"Введите пароль", true},
		{"Новый пароля", true},
		{"密码", true},
		{"请输入密码", true},
		{"密碼", true},
		{"口令", true},
		{"パスワード", true},
		{"パスワードを入力してください", true},
		{"비밀번호", true},
		{"비밀번호를 입력하세요", true},
		{"كلمة المرور", true},
		{"أدخل كلمة المرور", true},
		{"بكلمة المرور", true},
		{"كلمة السر", true},
		{"رمز عبور", true},
		{"סיסמה", true},
		{"पासवर्ड", true},
		{"रहस्य पासवर्ड दर्ज करें", true},
		{"รหัสผ่าน", true},
		{"Mật khẩu", true},
		{"Kata sandi", true},
		{"Şifre", true},
		{"ŞİFRE", true},
		{"Şifrenizi girin", true},
		{"sifre", true},
		{"Heslo", true},
		{"Lösenord", true},
		{"losenord", true},
		{"Adgangskode", true},
		{"Passord", true},
		{"Salasana", true},
		{"Jelszó", true},
		{"Jelszavát", true},
		{"Κωδικός", true},
		{"ΚΩΔΙΚΟΣ", true},
		{"κωδικού πρόσβασης", true},

		// Keys beyond API keys.
		{"AWS access key ID", true},
		{"secretKey", true},
		{"signing_key", true},
		{"Encryption key", true},
		{"License key", true},
		{"master key", true},

		// PINs.
		{"pin", true},
		{"PIN", true},
		{"Bank PIN", true},
		{"bank_pin", true},
		{"bankPin", true},
		{"Card PIN", true},
		{"PIN code", true},
		{"pinCode", true},
		{"pin_number", true},
		{"PIN2", true},
		{"UPI PIN", true},
		{"MPIN", true},
		{"Enter your 4-digit PIN to continue", true},
		{"Geheimzahl", true},
		{"暗証番号", true},

		// Social security and national id numbers.
		{"ssn", true},
		{"SSN", true},
		{"Last 4 of SSN", true},
		{"applicantSSN", true},
		{"Social Security number", true},
		{"social_security_number", true},
		{"Social insurance number", true},
		{"National Insurance number", true},
		{"National ID", true},
		{"nationalId", true},
		{"National identity number", true},
		{"Tax ID", true},
		{"taxpayer_id", true},
		{"ITIN", true},
		{"TIN", true},
		{"Aadhaar number", true},
		{"CPF", true},
		{"CURP", true},
		{"NIF", true},
		{"BSN", true},
		{"PESEL", true},
		{"Personnummer", true},
		{"Driver's license number", true},
		{"driving_licence", true},
		{"身份证号码", true},
		{"身分證字號", true},
		{"주민등록번호", true},
		{"マイナンバー", true},

		// One-time and verification codes.
		{"otp", true},
		{"OTP", true},
		{"otpCode", true},
		{"TOTP", true},
		{"HOTP", true},
		{"2FA", true},
		{"2fa", true},
		{"2FA code", true},
		{"twoFactor 2fa_code", true},
		{"MFA", true},
		{"MFA code", true},
		{"mfa_code", true},
		{"One-time code", true},
		{"one time code", true},
		{"oneTimeCode", true},
		{"onetime_code", true},
		{"Verification code", true},
		{"verificationCode", true},
		{"verification_codes", true},
		{"Verify code", true},
		{"Security code", true},
		{"Auth code", true},
		{"authCode", true},
		{"Authentication code", true},
		{"Authenticator code", true},
		{"Authorization code", true},
		{"SMS code", true},
		{"Login code", true},
		{"Sign-in code", true},
		{"Access code", true},
		{"Confirmation code", true},
		{"Reset code", true},
		{"Unlock code", true},
		{"Activation code", true},
		{"Enter the 6-digit code", true},
		{"Enter the code we sent to your phone", true},
		{"The code texted to you", true},
		{"Code from your authenticator app", true},
		{"otpauth URI", true},
		{"验证码", true},
		{"驗證碼", true},
		{"認証コード", true},
		{"인증번호", true},

		// Bank accounts.
		{"iban", true},
		{"IBAN", true},
		{"ibanNumber", true},
		{"Account number", true},
		{"account_number", true},
		{"accountNo", true},
		{"acct_no", true},
		{"Acct #", false}, // no word says number; "acct" alone is no secret
		{"bankaccountnumber", true},
		{"Routing number", true},
		{"routing_no", true},
		{"ABA number", true},
		{"Transit number", true},
		{"BSB number", true},
		{"Sort code", true},
		{"sortCode", true},
		{"Bank account", true},
		{"bank_account", true},

		// Security answers.
		{"Security answer", true},
		{"securityAnswer", true},
		{"Security question answer", true},
		{"Answer to your security question", true},
		{"Secret answer", true},
		{"Mother's maiden name", true},
		{"mothers_maiden_name", true},
		{"Maiden name", true},
		{"Name of your first pet", true},
		{"Memorable word", true},
		{"Memorable information", true},
		{"Challenge answer", true},

		// Recovery and seed phrases, recovery codes.
		{"Seed phrase", true},
		{"seed_phrase", true},
		{"Wallet seed", true},
		{"Seed words", true},
		{"Recovery phrase", true},
		{"Secret recovery phrase", true},
		{"Mnemonic", true},
		{"BIP39 mnemonic", true},
		{"Recovery code", true},
		{"recovery_codes", true},
		{"Backup codes", true},
		{"backupCode", true},
		{"Recovery key", true},

		// Client secrets, sessions, cookies, bearer tokens and auth headers.
		{"Client secret", true},
		{"OAuth client_secret", true},
		{"consumer_secret", true},
		{"Session cookie", true},
		{"cookie", true},
		{"Cookie", true},
		{"Cookies", true},
		{"Cookie value", true},
		{"Paste the cookie from your browser", true},
		{"session_id", true},
		{"sessionId", true},
		{"Session ID", true},
		{"JSESSIONID", true},
		{"PHPSESSID", true},
		{"Session key", true},
		{"Bearer", true},
		{"Bearer token", true},
		{"Authorization header", true},
		{"auth_header", true},
		{"Basic auth credentials", true},
		{"JWT", true},
		{"Credentials", true},
		{"credential", true},

		// Token counts of language models are no secrets.
		{"max_tokens", false},
		// A language model's counts (issue 27).
		{"input_tokens", false},
		{"completionTokens", false},
		{"Cached prompt tokens", false},
		{"reasoning_tokens", false},
		{"Input your API token", true},
		{"maxTokens", false},
		{"maxtokens", false},
		{"max_output_tokens", false},
		{"max_completion_tokens", false},
		{"Maximum number of tokens to generate", false},
		{"How many tokens may the answer use?", false},
		{"token_limit", false},
		{"Token budget", false},
		{"tokenCount", false},
		// Words that contain a stem without meaning it.
		{"tokenizer", false},
		{"Tokenize the input", false},
		{"Secretary's name", false},
		{"passwordless", false},
		{"Use passwordless sign-in", false},
		{"keyboard layout", false},
		{"api_version", false},
		{"private_repo", false},
		{"primary key", false},
		{"cardinality", false},
		{"passport number", false},
		{"bypass word filter", false},
		{"", false},
		{"name", false},
		{"Your email address", false},

		// "pin" inside other words, and pins that are no PIN.
		{"spinner", false},
		{"Spinner style", false},
		{"opinion", false},
		{"Your opinion", false},
		{"shipping", false},
		{"Shipping address", false},
		{"pinned", false},
		{"Pinned items", false},
		{"Pinterest handle", false},
		{"pinyin", false},
		{"PIN length", false},
		{"PIN code of the delivery address", false}, // an Indian postal code
		{"Pincode (postal)", false},
		{"Pincode", true},
		// "code" alone, or after words that name no secret.
		{"code", false},
		{"Code", false},
		{"Country code", false},
		{"country_code", false},
		{"Zip code", false},
		{"zipCode", false},
		{"Postal code", false},
		{"postal_code", false},
		{"Language code", false},
		{"languageCode", false},
		{"Area code", false},
		{"Currency code", false},
		{"Promo code", false},
		{"Discount code", false},
		{"Coupon code", false},
		{"Source code", false},
		{"Error code", false},
		{"Status code", false},
		{"Exit code", false},
		{"Color code", false},
		{"Product code", false},
		{"HS code", false},
		{"Code review comment", false},
		{"Enter the 5 digit zip code", false},
		// Settings of one-time codes name no code.
		{"otp_length", false},
		{"TOTP period", false},
		{"MFA method", false},
		{"2FA device", false},
		// Accounts and banks without a number.
		{"account", false},
		{"Account", false},
		{"account name", false},
		{"account_name", false},
		{"accountName", false},
		{"account_type", false},
		{"Account ID", false},
		{"Account holder", false},
		{"Bank account holder", false},
		{"bank_account_name", false},
		{"Bank name", false},
		{"Routing key", false},
		{"routing", false},
		// Other words near the rules.
		{"Security group", false},
		{"security", false},
		{"Auth method", false},
		{"auth", false},
		{"Access level", false},
		{"Session name", false},
		{"Session length", false},
		{"Random seed", false},
		{"seed", false},
		{"Recovery email", false},
		{"Backup location", false},
		{"Cookie domain", false},
		{"cookie_consent", false},
		{"Cookie policy URL", false},
		{"Credential name", false},
		{"credentials_file", false},
		{"Expiry date", false},
		{"Coupon expiry date", false},
		{"Document expiration", false},
		{"Social media handle", false},
		{"National park", false},
		{"International code", false},
		{"Tint color", false},
		{"Martin", false},
		{"Answer", false},
		{"Your answer", false},
		{"First name", false},
		{"Pet name", false},
		{"Maiden voyage", false},
		{"Bearing", false},
		{"Resenha do produto", false}, // Portuguese "review" holds "senha"
		{"Parola chiave", false},      // Italian "keyword"
		{"Ταχυδρομικός κώδικας", false},
		{"邮政编码", false},
		{"Código postal", false},
		{"Postleitzahl", false},
	} {
		t.Run(tt.text, func(t *testing.T) {
			if got := elicit.LooksSecret(tt.text); got != tt.want {
				t.Errorf("LooksSecret(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestParseMarksSensitive: Parse marks typed-in fields whose name, title or
// description looks secret, or whose schema says so; Form.Sensitive lists
// them for redaction.
func TestParseMarksSensitive(t *testing.T) {
	for _, tt := range []struct {
		name   string
		schema string
		want   []string // Form.Sensitive()
	}{
		{
			"by name, title and description",
			`{"type":"object","properties":{
				"user":{"type":"string"},
				"password":{"type":"string"},
				"k":{"type":"string","title":"API key"},
				"t":{"type":"string","description":"A GitHub personal access token with repo scope"},
				"note":{"type":"string","title":"Note"}}}`,
			[]string{"password", "k", "t"},
		},
		{
			"by format password and writeOnly",
			`{"type":"object","properties":{
				"a":{"type":"string","format":"password"},
				"b":{"type":"string","writeOnly":true},
				"c":{"type":"string","writeOnly":false}}}`,
			[]string{"a", "b"},
		},
		{
			// A payment format says what the field holds, whatever its
			// name: "credit-card" was kept in clear (issue 27).
			"by a payment format",
			`{"type":"object","properties":{
				"x":{"type":"string","format":"credit-card"},
				"y":{"type":"string","format":"cc-number"},
				"z":{"type":"string","format":"cc-csc"},
				"w":{"type":"string","format":"iban"},
				"site":{"type":"string","format":"uri"},
				"day":{"type":"string","format":"date"},
				"mail":{"type":"string","format":"email"}}}`,
			[]string{"x", "y", "z", "w"},
		},
		{
			"numbers too: a card security code",
			`{"type":"object","properties":{"cvv":{"type":"integer","minimum":0,"maximum":9999},"copies":{"type":"integer"}}}`,
			[]string{"cvv"},
		},
		{
			"a token count is no secret",
			`{"type":"object","properties":{"max_tokens":{"type":"integer","title":"Max tokens","description":"The most tokens to generate"}}}`,
			nil,
		},
		{
			"choices and booleans carry no secret",
			`{"type":"object","properties":{
				"show_password":{"type":"boolean"},
				"token_type":{"type":"string","enum":["bearer","mac"]},
				"secret_scopes":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`,
			nil,
		},
		{
			// The form of issue 10: each was shown in clear and kept so.
			"a bank PIN, an SSN and a one-time code",
			`{"type":"object","properties":{
				"pin":{"type":"integer","title":"Bank PIN","minimum":0,"maximum":9999},
				"ssn":{"type":"string","title":"Social security number"},
				"otp":{"type":"string","title":"One-time code","description":"The code we texted you"},
				"name":{"type":"string","title":"Full name"}}}`,
			[]string{"pin", "ssn", "otp"},
		},
		{
			"by title or description in other words and languages",
			`{"type":"object","properties":{
				"a":{"type":"string","title":"Passwort"},
				"b":{"type":"string","description":"Ihr Kennwort für die Datenbank"},
				"c":{"type":"string","title":"Mot de passe"},
				"d":{"type":"string","title":"密码"},
				"e":{"type":"string","title":"IBAN"},
				"f":{"type":"string","title":"Seed phrase","description":"The 24 words of your wallet"},
				"g":{"type":"string","title":"Mother's maiden name"},
				"h":{"type":"string","title":"Session cookie"},
				"i":{"type":"string","title":"Card expiry","description":"MM/YY"},
				"j":{"type":"string","title":"Verification code"}}}`,
			[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"},
		},
		{
			// A code that is none, and neighbours of the rules.
			"codes and accounts that are no secrets",
			`{"type":"object","properties":{
				"country_code":{"type":"string","title":"Country code"},
				"zip":{"type":"string","title":"Zip code"},
				"postal_code":{"type":"string"},
				"lang":{"type":"string","title":"Language code"},
				"account_name":{"type":"string","title":"Account name"},
				"spinner":{"type":"string","title":"Spinner style"},
				"opinion":{"type":"string","title":"Your opinion"},
				"shipping":{"type":"string","title":"Shipping address"},
				"seed":{"type":"integer","title":"Random seed"}}}`,
			nil,
		},
		{
			// Only typed-in fields carry a secret the server does not know.
			"booleans and selects near the rules",
			`{"type":"object","properties":{
				"pin_to_top":{"type":"boolean","title":"Pin to top"},
				"pinned":{"type":"boolean"},
				"account_type":{"type":"string","enum":["checking","savings"]},
				"mfa_method":{"type":"string","oneOf":[{"const":"sms","title":"SMS code"},{"const":"app","title":"Authenticator app"}]},
				"cookie_consent":{"type":"boolean","title":"Accept cookies"}}}`,
			nil,
		},
		{
			"through a $ref",
			`{"type":"object","properties":{"s":{"$ref":"#/$defs/Secret"}},"$defs":{"Secret":{"type":"string","title":"Client secret"}}}`,
			[]string{"s"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form, err := elicit.Parse(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, form.Sensitive()); diff != "" {
				t.Errorf("Sensitive() mismatch (-want +got):\n%s", diff)
			}
			for _, f := range form.Fields {
				want := false
				for _, n := range tt.want {
					want = want || n == f.Name
				}
				if f.Sensitive != want {
					t.Errorf("field %q: Sensitive = %v, want %v", f.Name, f.Sensitive, want)
				}
			}
		})
	}
}

// FuzzLooksSecret: any text is read without a panic, and a secret stays one
// among other words: a sentence around a field's name hides nothing.
func FuzzLooksSecret(f *testing.F) {
	for _, s := range []string{"password", "max_tokens", "APIKey", "tokenizer", "cvv2", "ÄpiKéy", "\u202epassword", "api key",
		"Bank PIN", "spinner", "2FA code", "country code", "mot de passe", "كلمة المرور", "contrasen\u0303a", "Mother's maiden name", "ŞİFRE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if elicit.LooksSecret(s) && !elicit.LooksSecret("Enter the "+s+" here") {
			t.Errorf("%q looks secret, but not in a sentence", s)
		}
	})
}

// TestLooksSecretMoreLanguages: the words for password in more languages
// (EU languages and the most spoken ones that were missed), and card
// numbers, verification codes and national id numbers in the languages the
// password rules already cover; each of these was shown in clear.
func TestLooksSecretMoreLanguages(t *testing.T) {
	for _, text := range []string{
		"Contrasenya", "Lozinka", "Лозинка", "Geslo", "Slaptažodis", "Parool", "Lykilorð", "Pasahitza",
		"Contrasinal", "পাসওয়ার্ড", "پاس ورڈ", "கடவுச்சொல்", "పాస్‌వర్డ్", "Kata laluan", "Nenosiri",
		"Nywila", "პაროლი", "գաղտնաբառ", "Құпия сөз", "Нууц үг",
		"Kartennummer", "Kontonummer", "Sicherheitscode", "Bestätigungscode", "numéro de carte",
		"número de tarjeta", "código de verificación", "code de vérification", "Код подтверждения",
		"Номер карты", "信用卡号", "安全码", "カード番号", "セキュリティコード", "카드번호",
		"Sozialversicherungsnummer", "Steuer-ID", "Steueridentifikationsnummer", "codice fiscale",
		"numéro de sécurité sociale", "número de seguridad social", "henkilötunnus", "fødselsnummer", "СНИЛС",
	} {
		if !elicit.LooksSecret(text) {
			t.Errorf("LooksSecret(%q) = false, want true", text)
		}
	}
	for _, text := range []string{"parola chiave", "Paroles de la chanson", "Karte", "Konto", "code", "Steuer"} {
		if elicit.LooksSecret(text) {
			t.Errorf("LooksSecret(%q) = true, want false", text)
		}
	}
}
