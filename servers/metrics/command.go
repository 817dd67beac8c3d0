package metrics

import (
	"context"
	"fmt"
	"net"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	genericapiserver "k8s.io/apiserver/pkg/server"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	"k8s.io/klog/v2"
)

// NewCommand is `metrics-server`: it runs the metrics server in the foreground until SIGTERM
// or SIGINT. The chain adds it as a subcommand (`chain metrics-server --kubeconfig ...`).
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "metrics-server",
		Short: "Run the metrics.k8s.io aggregated API server (metrics-server) for a chain",
		Long: `metrics-server scrapes the resource metrics of every node's kubelet and serves them as
metrics.k8s.io (NodeMetrics, PodMetrics; v1beta1 and v1) for kubectl top and the HPA. It
registers itself with the chain given by --kubeconfig, which then proxies metrics.k8s.io to it.`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%q takes no arguments, got %q", cmd.CommandPath(), args)
			}
			if err := logsapi.ValidateAndApply(o.Logs, nil); err != nil {
				return err
			}
			completed, err := o.Complete()
			if err != nil {
				return err
			}
			if errs := completed.Validate(); len(errs) > 0 {
				return utilerrors.NewAggregate(errs)
			}
			// SetupSignalContext may be called once per process: here, not in NewCommand.
			return Run(genericapiserver.SetupSignalContext(), completed)
		},
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	globalflag.AddGlobalFlags(fss.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	for _, fs := range fss.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, fss, cols)
	return cmd
}

// Run builds the metrics server from completed, validated options and serves until ctx is done.
func Run(ctx context.Context, o CompletedOptions) error {
	config, err := NewConfig(o)
	if err != nil {
		return fmt.Errorf("configuring the metrics server: %w", err)
	}
	s, err := config.Complete().New()
	if err != nil {
		return err
	}
	prepared, err := s.PrepareRun()
	if err != nil {
		return fmt.Errorf("preparing the metrics server: %w", err)
	}
	klog.InfoS("Serving metrics.k8s.io", "address", s.Addr(), "resolution", o.MetricResolution)
	return prepared.Run(ctx)
}

func listenerPort(l net.Listener) int {
	if a, ok := l.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}
