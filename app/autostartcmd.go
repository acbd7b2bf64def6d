package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/elicitray/elicitray/app/autostart"
	"github.com/spf13/cobra"
)

func newAutostartCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "autostart on|off|status",
		Short: "Start the hub when you log in (on), stop doing so (off), or say which it does (status)",
		Long: "autostart makes the desktop start elicitray's hub (the tray icon and the prompt windows)\n" +
			"when you log in, so it is there before a server asks:\n" +
			"  Linux and BSD  ~/.config/autostart/" + autostart.ID + ".desktop (XDG autostart)\n" +
			"  macOS          ~/Library/LaunchAgents/" + autostart.ID + ".plist (launchd)\n" +
			"  Windows        the value elicitray under HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\n" +
			"The entry starts this elicitray binary; run `autostart on` again after moving it.",
		Example:   "  elicitray autostart on\n  elicitray autostart status",
		ValidArgs: []string{"on", "off", "status"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || (args[0] != "on" && args[0] != "off" && args[0] != "status") {
				return usageError{errors.New("autostart takes one of on, off or status")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := autostart.Current()
			if err != nil {
				return runErr(err)
			}
			a := autostart.New()
			switch args[0] {
			case "on":
				said, err := autostart.On()
				if err != nil {
					return runErr(err)
				}
				fmt.Fprintln(stdout, said)
			case "off":
				removed, err := a.Disable()
				if err != nil {
					return runErr(fmt.Errorf("turning autostart off: %w", err))
				}
				if removed {
					fmt.Fprintf(stdout, "autostart off: removed %s.\n", a.Where())
				} else {
					fmt.Fprintf(stdout, "autostart was off (no %s).\n", a.Where())
				}
			default:
				st, err := a.Status(t)
				if err != nil {
					return runErr(err)
				}
				fmt.Fprintln(stdout, st.Sentence())
			}
			return nil
		},
	}
	return cmd
}
