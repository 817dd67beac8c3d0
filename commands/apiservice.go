package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/internal/apiservice"
	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/internal/kubeconfig"
)

// newAPIServiceCommand is `chain apiservice add|remove`: it registers an aggregated API server
// that runs on this machine with a running chain, which it finds as kubectl does ($KUBECONFIG,
// --kubeconfig). internal/apiservice does the work; chaintest registers servers with it too.
func newAPIServiceCommand() *cobra.Command {
	var kubeconfigPath string
	cmd := &cobra.Command{
		Use:   "apiservice",
		Short: "Register an aggregated API server running on this machine with a running chain, or remove it",
		Args:  cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&kubeconfigPath, "kubeconfig", "", "The kubeconfig that reaches the chain (default: as kubectl finds it, $KUBECONFIG or ~/.kube/config).")
	cmd.AddCommand(newAPIServiceAddCommand(&kubeconfigPath), newAPIServiceRemoveCommand(&kubeconfigPath))
	return cmd
}

// addOptions are the flags of `chain apiservice add`.
type addOptions struct {
	groupVersion, url, caFile, writeKubeconfig string
	insecureSkipTLSVerify                      bool
}

func newAPIServiceAddCommand(kubeconfigPath *string) *cobra.Command {
	var o addOptions
	cmd := &cobra.Command{
		Use:   "add NAME --group-version GROUP/VERSION --url https://127.0.0.1:PORT (--ca-file FILE | --insecure-skip-tls-verify) [--write-kubeconfig FILE]",
		Short: "Register an aggregated API server: a Service, its EndpointSlice and the APIService NAME (VERSION.GROUP)",
		Long: `add writes, in kube-system, a Service without a selector and an EndpointSlice that give the
server's URL (a loopback address as <service>.localhost, which the chain's Aggregator dials on
127.0.0.1), then the APIService NAME that routes GROUP/VERSION there.

With --write-kubeconfig it first makes the server an identity, as a cluster operator would: a
ServiceAccount bound to system:auth-delegator, to the Role extension-apiserver-authentication-reader
in kube-system and to the reads k8s.io/apiserver's RecommendedOptions make; it writes a
kubeconfig with a token of it and prints the flags such a server then takes.

Everything is checked before anything is written, and a failed write takes back the earlier ones.

	chain apiservice add v1alpha1.wardle.example.com --group-version wardle.example.com/v1alpha1 \
	  --url https://127.0.0.1:8443 --insecure-skip-tls-verify --write-kubeconfig wardle.kubeconfig`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return addAPIService(cmd.Context(), cmd.OutOrStdout(), *kubeconfigPath, args[0], o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.groupVersion, "group-version", "", "The group and version the server serves, GROUP/VERSION.")
	fs.StringVar(&o.url, "url", "", "Where the server listens: https://HOST:PORT.")
	fs.StringVar(&o.caFile, "ca-file", "", "PEM file of the CA that signed the server's certificate, which must name <service>.kube-system.svc.")
	fs.BoolVar(&o.insecureSkipTLSVerify, "insecure-skip-tls-verify", false, "Do not verify the server's certificate (a self-signed one for localhost, say).")
	fs.StringVar(&o.writeKubeconfig, "write-kubeconfig", "", "Also make the server an identity and write a kubeconfig for it here.")
	return cmd
}

func newAPIServiceRemoveCommand(kubeconfigPath *string) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove what `chain apiservice add NAME` wrote, the APIService first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, err := chainClientConfig(*kubeconfigPath)
			if err != nil {
				return err
			}
			client, err := apiservice.NewClient(cfg)
			if err != nil {
				return err
			}
			removed, err := client.Remove(cmd.Context(), args[0])
			for _, r := range removed {
				fmt.Fprintf(cmd.OutOrStdout(), "%s deleted\n", r)
			}
			return err
		},
	}
}

func addAPIService(ctx context.Context, out io.Writer, kubeconfigPath, name string, o addOptions) error {
	// First everything that needs no chain: the input.
	spec, err := o.spec(name)
	if err != nil {
		return err
	}
	if err := checkWritable(o.writeKubeconfig); err != nil {
		return err
	}
	cfg, kubeconfigFile, err := chainClientConfig(kubeconfigPath)
	if err != nil {
		return err
	}
	client, err := apiservice.NewClient(cfg)
	if err != nil {
		return err
	}
	identity := o.writeKubeconfig != ""
	existing, err := client.Existing(ctx, name, identity)
	if err != nil {
		return err
	}
	if len(existing) > 0 {
		return fmt.Errorf("%s exist already: run `chain apiservice remove %s` first", joinRefs(existing), name)
	}

	// Then the writes, each step taking back the earlier ones if it fails.
	var written []apiservice.Ref
	undo := func(err error) error {
		if undoErr := client.Delete(ctx, written); undoErr != nil {
			return errors.Join(err, fmt.Errorf("and taking back what was written: %w", undoErr))
		}
		return err
	}
	var token string
	if identity {
		if written, err = client.CreateIdentity(ctx, name); err != nil {
			return err
		}
		if token, err = client.Token(ctx, name, apiservice.TokenLifetime); err != nil {
			return undo(err)
		}
	}
	registered, err := client.Register(ctx, spec)
	if err != nil {
		return undo(err)
	}
	written = append(written, registered...)
	if identity {
		kc, err := apiservice.Kubeconfig(cfg, name, token)
		if err == nil {
			err = kubeconfig.Write(o.writeKubeconfig, kc)
		}
		if err != nil {
			return undo(fmt.Errorf("--write-kubeconfig %s: %w", o.writeKubeconfig, err))
		}
	}

	for _, r := range written {
		fmt.Fprintf(out, "%s created\n", r)
	}
	if !identity {
		return nil
	}
	abs, _ := filepath.Abs(o.writeKubeconfig)
	fmt.Fprintf(out, "wrote %s: user %s, token valid for %v\n", o.writeKubeconfig, apiservice.UserName(name), apiservice.TokenLifetime)
	etcdServers, etcdTLS := chainEtcd(kubeconfigFile, cfg.Host)
	fmt.Fprintln(out, "flags for a server built on k8s.io/apiserver's RecommendedOptions:")
	fmt.Fprintln(out, "  "+strings.Join(spec.ServingFlags(), " "))
	for _, f := range apiservice.ServerFlags(abs, etcdServers, etcdTLS) {
		fmt.Fprintln(out, "  "+f)
	}
	return nil
}

// spec turns the flags into a registration and checks it.
func (o addOptions) spec(name string) (apiservice.Spec, error) {
	if o.groupVersion == "" || o.url == "" {
		return apiservice.Spec{}, errors.New("--group-version and --url are required")
	}
	gv, err := apiservice.ParseGroupVersion(o.groupVersion)
	if err != nil {
		return apiservice.Spec{}, err
	}
	spec := apiservice.Spec{Name: name, GroupVersion: gv, URL: o.url, InsecureSkipTLSVerify: o.insecureSkipTLSVerify}
	if o.caFile != "" {
		if spec.CABundle, err = os.ReadFile(o.caFile); err != nil {
			return apiservice.Spec{}, fmt.Errorf("--ca-file: %w", err)
		}
		if len(spec.CABundle) == 0 {
			return apiservice.Spec{}, fmt.Errorf("--ca-file %s is empty", o.caFile)
		}
	}
	return spec, spec.Validate()
}

// checkWritable: the kubeconfig's directory exists and the path is no directory, so that the
// file can be written once the chain has the identity.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--write-kubeconfig %s is a directory", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--write-kubeconfig %s: no directory %s", path, filepath.Dir(path))
	}
	return nil
}

// chainClientConfig loads the client configuration as kubectl does, and names the kubeconfig
// file it came from (the first of the files in use), if any.
func chainClientConfig(explicitPath string) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = explicitPath
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("finding the chain (as kubectl does: --kubeconfig, $KUBECONFIG): %w", err)
	}
	file := explicitPath
	if file == "" {
		for _, f := range rules.GetLoadingPrecedence() {
			if _, err := os.Stat(f); err == nil {
				file = f
				break
			}
		}
	}
	return cfg, file, nil
}

// chainEtcd is the etcd of the chain at host, when the kubeconfig in use is a chain's
// admin.kubeconfig: its data dir names the etcd beside it (etcd-endpoints). Another file, or a
// data dir of another chain, names none.
func chainEtcd(kubeconfigFile, host string) ([]string, etcd.TLSFiles) {
	if kubeconfigFile == "" {
		return nil, etcd.TLSFiles{}
	}
	dir := filepath.Dir(kubeconfigFile)
	admin, err := clientcmd.LoadFromFile(filepath.Join(dir, "admin.kubeconfig"))
	if err != nil || admin.Clusters[kubeconfig.Name] == nil || admin.Clusters[kubeconfig.Name].Server != host {
		return nil, etcd.TLSFiles{}
	}
	servers, err := etcd.ReadEndpoints(dir)
	if err != nil {
		return nil, etcd.TLSFiles{}
	}
	tlsFiles, err := etcd.ReadTLSFiles(dir)
	if err != nil {
		return nil, etcd.TLSFiles{}
	}
	return servers, tlsFiles
}

func joinRefs(refs []apiservice.Ref) string {
	s := make([]string, len(refs))
	for i, r := range refs {
		s[i] = r.String()
	}
	return strings.Join(s, ", ")
}
