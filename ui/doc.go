// Package ui is elicitray's desktop surface, built with Fyne: the prompt
// windows that answer a form-mode elicitation (PROTOCOL.md §4–§6) and a
// URL-mode one (§6), the tray icon with its menu, the same menu as a small
// window for desktops without a tray, the settings window, the history
// browser, and the installed app's one-time "start at login?" offer.
//
// Each surface lives in its own file (prompt.go, urlprompt.go, tray.go,
// menu.go, settings.go, history.go, autostartoffer.go) as an unexported struct holding its widgets, a build method
// and onXxx handlers; the exported functions only create a window around
// it. The elicitation model (fields, defaults, parsing, validation, the
// ElicitResult content, what a URL opens and what to warn about) comes from
// bridge/elicit; ui never decides what is valid itself.
//
// Goroutines: one per prompt window with a deadline, a one-second ticker
// that updates its countdown through fyne.Do and ends when the window
// closes; the history window's reads, counts, clearing and exports,
// each on a goroutine of its own that applies its result through fyne.Do;
// the menu window's timer for the next mute's end, which redraws through
// fyne.Do; a prompt window's key guard, a timer that arms it through
// fyne.Do half a second after it opens; WarmUp's font loading, which it
// waits for before it returns; and, on Linux, one that sets and clears a
// prompt window's urgency hints and ArmedProperty over an X connection of
// its own (attention_linux.go), running only while it has a change to
// make. WarmUp
// is called on the main goroutine before the app's Run (it calls GLFW
// there, as Fyne's driver does). Every exported function and method must be called on the Fyne
// goroutine (inside fyne.Do from elsewhere), except PromptWindow.SetWaiting,
// HistoryWindow.Changed and the Tray setters, which any goroutine may call; every callback ui
// invokes (the done func of ShowPrompt and ShowURLPrompt, ShowSettings's
// save, ShowMenu's TrayActions, ShowAutostartOffer's answer) runs on the
// Fyne goroutine and must return promptly. The tray is the exception: it
// needs no Fyne driver (the hub runs none), SetupTray may be called from
// any goroutine, and its TrayActions run on the tray's own goroutine, one
// at a time.
//
// Caveats:
//   - Everything a server sends (message, serverInfo, titles, descriptions,
//     option labels) is shown as plain text, never as markdown or rich text:
//     it is untrusted (PROTOCOL.md §6). The one exception, a URL prompt's
//     link, is rich text built from plain segments to highlight the host,
//     never parsed.
//   - Fyne 2.7 draws the runs of a line in the order they come, never in
//     the visual order of the Unicode Bidirectional Algorithm, so Arabic or
//     Hebrew split by punctuation, digits or another script came out
//     swapped (docs/bidi.md). Server text a window draws goes through
//     bidiText (bidi.go), which hands Fyne the runs in visual order, and a
//     wrapped or cut label of it is a bidiLabel (bidilabel.go), which breaks
//     lines before reordering them. Only the drawing changes: values and
//     what the history keeps are as sent. An entry is drawn by Fyne while
//     it has the focus (its cursor works on the text as stored) and by a
//     label over it the rest of the time (bidiEntry, bidientry.go).
//   - A form field that looks like it asks for a secret
//     (elicit.Field.Sensitive) is masked as it is typed, under a warning
//     naming the configured server (PROTOCOL.md §6); the value is still
//     sent as typed: whether to keep it out of the history is the hub's.
//   - A URL prompt fetches nothing and opens its link only after the user
//     chose "Open in browser", and then in the system browser, after done
//     has the accept (PROTOCOL.md §6).
//   - A select of more than longList (20) choices is a choiceList
//     (choicelist.go): a filter entry over a widget.List, which makes widgets
//     only for the rows in view, so a form at elicit's limits (500 fields,
//     10,000 choices a select) opens in a fraction of a second.
//   - A prompt window comes to the front and asks the window manager for
//     attention (attention_linux.go) but never relaxes the key guard: keys
//     typed for another window answer nothing and type nothing, as the
//     window takes no input until half a second passed with no key going
//     down in it (keyGuard); it then sets the X property ArmedProperty, for
//     programs that type into it. The tray icon badges
//     the number of prompts waiting (traybadge.go).
//   - ui talks to no socket and no database: the history window reads through
//     the HistorySource interface that the hub implements.
//   - Errors reach the user through one helper, showError, as a dialog with a
//     sentence; the detail goes to the log.
//   - Everything ui (and app's notifications and doctor) says goes through
//     ui/lang, keyed by the English text, with the translations embedded
//     there and the language taken from LC_ALL, LC_MESSAGES, LANG and
//     LANGUAGE; Fyne's lang gets the same files for Fyne's own words
//     (lang.go). What the server wrote never goes through them.
//     bridge/elicit's messages about values and links are English, for the
//     log and the host too: fieldmessages.go and urlmessages.go translate
//     them for the window.
package ui
