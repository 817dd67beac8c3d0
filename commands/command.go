// Package commands is the chain binary's command line, the outermost layer: cmd/chain's main
// runs NewCommand. The root command `chain` turns its flags into servers/chain's Options and
// runs the whole chain in the foreground (servers/chain.Run). Its subcommands are the clients
// that talk to a running chain from outside it (etcdctl: what the chain stores in etcd;
// apiservice: register an aggregated API server running on this machine), and the metrics
// server, whose command is its own (servers/metrics.NewCommand).
package commands

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/rest"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	"k8s.io/component-base/term"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/servers/metrics"
)

// NewCommand is the chain command: `chain` starts the whole chain in the foreground.
func NewCommand() *cobra.Command {
	o := chain.NewOptions()
	cmd := &cobra.Command{
		Use:   "chain",
		Short: "Run the Kubernetes API server chain: Aggregator → Core → ApiExtensions, on embedded etcd",
		Long: `chain runs the three servers kube-apiserver is made of, wired the way kube-apiserver wires them,
with an embedded etcd, and writes an admin kubeconfig for kubectl and client-go.`,
		SilenceUsage: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			// The servers' own loopback clients should not print the warnings they cause.
			rest.SetDefaultWarningHandler(rest.NoWarnings{})
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%q takes no arguments, got %q", cmd.CommandPath(), args)
			}
			completed, err := o.Complete()
			if err != nil {
				return err
			}
			if errs := completed.Validate(); len(errs) > 0 {
				return utilerrors.NewAggregate(errs)
			}
			return chain.Run(genericapiserver.SetupSignalContext(), completed, os.Stdout)
		},
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	globalflag.AddGlobalFlags(fss.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	for _, fs := range fss.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cmd.AddCommand(metrics.NewCommand(), newEtcdctlCommand(), newAPIServiceCommand(), newTraceCommand())
	// cliflag's help and usage print the chain's flags in their named sets. Subcommands inherit
	// a parent's help and usage, so those with flags of their own and no help of their own
	// (trace, etcdctl, apiservice) keep cobra's, which print their flags.
	ownHelp, ownUsage := cmd.HelpFunc(), cmd.UsageFunc()
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, fss, cols)
	chainHelp, chainUsage := cmd.HelpFunc(), cmd.UsageFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == cmd {
			chainHelp(c, args)
			return
		}
		ownHelp(c, args)
	})
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		if c == cmd {
			return chainUsage(c)
		}
		return ownUsage(c)
	})
	return cmd
}
