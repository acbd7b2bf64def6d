//go:build windows

package autostart

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// runKey is where Windows keeps what starts at a user's logon.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// runValue is elicitray's value under runKey.
type runValue struct{}

func New() Entry { return runValue{} }

func (runValue) Where() string { return `HKCU\` + runKey + `\elicitray` }

func (runValue) Enable(t Target) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.SetStringValue("elicitray", WindowsRunCommand(t))
}

func (runValue) Disable() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer k.Close()
	err = k.DeleteValue("elicitray")
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (v runValue) Status(t Target) (State, error) {
	st := State{Where: v.Where()}
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	defer k.Close()
	cmd, _, err := k.GetStringValue("elicitray")
	if errors.Is(err, registry.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.On = true
	st.Current = cmd == WindowsRunCommand(t)
	if exe, _, ok := strings.Cut(strings.TrimPrefix(cmd, `"`), `"`); ok {
		st.Exe, st.SameExe = exe, strings.EqualFold(exe, t.Exe)
		if _, err := os.Stat(exe); err != nil {
			st.Missing = true
		}
	}
	return st, nil
}
