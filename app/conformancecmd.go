package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/elicitray/elicitray/app/demo"
	"github.com/elicitray/elicitray/app/paths"
)

// ConformanceServerName is the name conformance-host gives the wrapper
// unless told otherwise: the server whose rule config.toml sets for the
// run (`make conformance` sets accept-defaults-or-cancel).
const ConformanceServerName = "conformance"

// newConformanceHostCmd is `elicitray conformance-host URL`, the client
// command of the MCP conformance suite's client scenarios: the suite
// starts it with the scenario's server URL as its last argument, and it
// hosts `elicitray wrap --url URL`, so that elicitray is the client's
// elicitation layer (demo.Conformance).
func newConformanceHostCmd(ctx context.Context, p paths.Paths, stdout, stderr io.Writer) *cobra.Command {
	var name string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "conformance-host [--name NAME] URL",
		Short: "Run the small MCP host for the conformance suite's client scenarios, with `elicitray wrap --url URL` as its server",
		Long: "conformance-host is the client command for @modelcontextprotocol/conformance (make conformance):\n" +
			"it starts `elicitray wrap --name NAME --url URL`, connects at $" + demo.ProtocolVersionEnv + ",\n" +
			"and calls the tools $" + demo.ScenarioEnv + " needs. It answers no elicitation itself: the\n" +
			"hub's rule for NAME does (for unattended runs, rule = \"accept-defaults-or-cancel\").",
		Example: `  conformance client --command "elicitray conformance-host" --scenario elicitation-sep1034-client-defaults`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return usageError{errors.New("conformance-host needs the server URL as its one argument")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// The suite kills the shell it started the host with, not the
			// host, at its own timeout, and then waits for the host's
			// output to end: the host must end by itself.
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			exe, err := os.Executable()
			if err != nil {
				return runErr(fmt.Errorf("finding elicitray itself: %w", err))
			}
			return runErr(demo.Conformance(ctx, demo.ConformanceOptions{
				Command:         []string{exe, "wrap", "--name", name, "--url", args[0]},
				Scenario:        os.Getenv(demo.ScenarioEnv),
				ProtocolVersion: os.Getenv(demo.ProtocolVersionEnv),
				Context:         []byte(os.Getenv(demo.ContextEnv)),
			}, stdout))
		},
	}
	cmd.Flags().StringVar(&name, "name", ConformanceServerName, "the wrapped server's name in history and config.toml")
	durationVar(cmd.Flags(), &timeout, "timeout", 25*time.Second, "give up after this long (the suite waits 30s for a client by default)")
	return cmd
}
