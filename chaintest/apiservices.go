package chaintest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/internal/apiservice"
	"github.com/apichain/apichain/internal/kubeconfig"
)

// APIService is an aggregated API server for AddAPIService to register: the group version it
// serves, where it listens, and how the Aggregator verifies its certificate.
type APIService struct {
	GroupVersion schema.GroupVersion
	// URL is https://HOST:PORT, an httptest.Server's URL for one.
	URL string
	// CABundle verifies the server's certificate, which must then name
	// <version>-<group with dashes>.kube-system.svc (an httptest.Server's does not); or
	// InsecureSkipTLSVerify skips the verification.
	CABundle              []byte
	InsecureSkipTLSVerify bool
}

// Delegation is what an aggregated API server needs from the chain to authenticate and
// authorize its requests as kube-apiserver's aggregated servers do: it trusts the front-proxy
// CA for the Aggregator's client certificate and reads the user from the X-Remote-* headers,
// checks bearer tokens with TokenReviews, and asks SubjectAccessReviews.
type Delegation struct {
	// KubeconfigPath is a kubeconfig of the server's own identity (a ServiceAccount bound to
	// system:auth-delegator and extension-apiserver-authentication-reader, and allowed the reads
	// of k8s.io/apiserver's RecommendedOptions). A server built on k8s.io/apiserver takes it as
	// its RemoteKubeConfigFile for authentication and authorization (the flags
	// --authentication-kubeconfig, --authorization-kubeconfig), and for its --kubeconfig.
	KubeconfigPath string
	// Config is the same identity as a client configuration.
	Config *rest.Config
	// FrontProxyCA is the PEM CA of the Aggregator's proxy client certificate, for a server
	// that does not read it from kube-system/extension-apiserver-authentication (its
	// requestheader-client-ca-file).
	FrontProxyCA []byte
}

// APIServiceName is the name of the APIService for gv: VERSION.GROUP.
func APIServiceName(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }

// Delegation makes the identity of the aggregated API server that will serve gv, and returns
// it: call it before starting the server, then AddAPIService. The kubeconfig is written into
// the data dir.
func (e *Environment) Delegation(gv schema.GroupVersion) (*Delegation, error) {
	if e.chain == nil {
		return nil, errors.New("chaintest: Delegation before Start")
	}
	name := APIServiceName(gv)
	client, err := apiservice.NewClient(e.Config)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if _, err := client.CreateIdentity(ctx, name); err != nil {
		return nil, err
	}
	token, err := client.Token(ctx, name, apiservice.TokenLifetime)
	if err != nil {
		return nil, err
	}
	kc, err := apiservice.Kubeconfig(e.Config, name, token)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(e.DataDir, apiservice.ServiceName(name)+".kubeconfig")
	if err := kubeconfig.Write(path, kc); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig()
	if err != nil {
		return nil, err
	}
	frontProxyCA, err := os.ReadFile(e.chain.PKI.FrontProxyCACert)
	if err != nil {
		return nil, err
	}
	return &Delegation{KubeconfigPath: path, Config: cfg, FrontProxyCA: frontProxyCA}, nil
}

// AddAPIService registers s with the Aggregator (a Service, its EndpointSlice and the
// APIService, as `chain apiservice add` writes them) and waits until the APIService is
// Available, for ControlPlaneStartTimeout at most. If it does not become available, the error
// carries its condition's reason and message, and the registration stays for the test to look
// at; RemoveAPIService takes it away, and so does Stop, with the whole chain.
func (e *Environment) AddAPIService(s APIService) error {
	if e.chain == nil {
		return errors.New("chaintest: AddAPIService before Start")
	}
	client, err := apiservice.NewClient(e.Config)
	if err != nil {
		return err
	}
	name := APIServiceName(s.GroupVersion)
	spec := apiservice.Spec{Name: name, GroupVersion: s.GroupVersion, URL: s.URL, CABundle: s.CABundle, InsecureSkipTLSVerify: s.InsecureSkipTLSVerify}
	if _, err := client.Register(context.Background(), spec); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.ControlPlaneStartTimeout)
	defer cancel()
	return client.WaitAvailable(ctx, name)
}

// RemoveAPIService removes what AddAPIService and Delegation wrote for gv.
func (e *Environment) RemoveAPIService(gv schema.GroupVersion) error {
	if e.chain == nil {
		return errors.New("chaintest: RemoveAPIService before Start")
	}
	client, err := apiservice.NewClient(e.Config)
	if err != nil {
		return err
	}
	if _, err := client.Remove(context.Background(), APIServiceName(gv)); err != nil {
		return fmt.Errorf("chaintest: %w", err)
	}
	return nil
}
