package chaintest

import (
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/internal/kubeconfig"
	"github.com/apichain/apichain/internal/pki"
)

// AuthenticatedUser is a user with credentials the control plane accepts: an x509 client
// certificate from the chain's client CA, as envtest's users have.
type AuthenticatedUser struct {
	User
	cfg *rest.Config
	url string
	ca  []byte
}

// Config is a client configuration for the user.
func (u *AuthenticatedUser) Config() *rest.Config { return rest.CopyConfig(u.cfg) }

// KubeConfig is a kubeconfig file's contents for the user.
func (u *AuthenticatedUser) KubeConfig() ([]byte, error) {
	return clientcmd.Write(*kubeconfig.Build(u.url, u.ca, kubeconfig.User{Name: u.Name,
		Cert: u.cfg.TLSClientConfig.CertData, Key: u.cfg.TLSClientConfig.KeyData}))
}

// AddUser issues a client certificate for user (CN = name, O = groups) and returns it. The
// client settings of baseConfig (QPS, timeouts, ...) are kept; nil takes Config's.
func (e *Environment) AddUser(user User, baseConfig *rest.Config) (*AuthenticatedUser, error) {
	if e.chain == nil {
		return nil, errors.New("chaintest: AddUser before Start")
	}
	if baseConfig == nil {
		baseConfig = e.Config
	}
	certPEM, keyPEM, err := pki.IssueClientCert(e.chain.PKI, user.Name, user.Groups)
	if err != nil {
		return nil, fmt.Errorf("issuing a certificate for %s: %w", user.Name, err)
	}
	cfg := rest.AnonymousClientConfig(baseConfig)
	cfg.Host = e.chain.URL
	cfg.TLSClientConfig = rest.TLSClientConfig{CAData: e.Config.TLSClientConfig.CAData, CertData: certPEM, KeyData: keyPEM}
	return &AuthenticatedUser{User: user, cfg: cfg, url: e.chain.URL, ca: e.Config.TLSClientConfig.CAData}, nil
}
