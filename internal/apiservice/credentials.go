package apiservice

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/internal/kubeconfig"
)

// TokenLifetime is how long the token of a server's kubeconfig is valid. The kubeconfig is the
// server's credential for as long as it is registered, so a year; a new token comes from
// `kubectl create token` (or removing and adding the registration again).
const TokenLifetime = 365 * 24 * time.Hour

// UserName is the user a server authenticates to the chain as, with its ServiceAccount's token.
func UserName(apiService string) string {
	sa := namesFor(apiService).serviceAccount
	return serviceaccount.MakeUsername(sa.Namespace, sa.Name)
}

// Kubeconfig is a kubeconfig for the server's ServiceAccount, with token, for the chain that
// chain (the caller's own client configuration) reaches, trusting the CA chain trusts.
func Kubeconfig(chain *rest.Config, apiService, token string) (*clientcmdapi.Config, error) {
	ca := chain.TLSClientConfig.CAData
	if len(ca) == 0 && chain.TLSClientConfig.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(chain.TLSClientConfig.CAFile); err != nil {
			return nil, fmt.Errorf("the chain's CA: %w", err)
		}
	}
	cfg := kubeconfig.Build(chain.Host, ca, kubeconfig.User{Name: UserName(apiService), Token: token})
	cfg.Clusters[kubeconfig.Name].InsecureSkipTLSVerify = len(ca) == 0 && chain.TLSClientConfig.Insecure
	return cfg, nil
}

// ServerFlags are the flags of a server built on k8s.io/apiserver's RecommendedOptions that
// make it use kubeconfigPath for its delegated authentication (TokenReviews, and the CAs it
// reads from kube-system/extension-apiserver-authentication), its delegated authorization
// (SubjectAccessReviews) and its own client of the chain (--kubeconfig: the informers of its
// admission and its API Priority and Fairness), and, when etcdServers names any, store in that
// etcd (under a prefix of its own: the chain's is /registry).
func ServerFlags(kubeconfigPath string, etcdServers []string, etcdTLS etcd.TLSFiles) []string {
	flags := []string{
		"--kubeconfig=" + kubeconfigPath,
		"--authentication-kubeconfig=" + kubeconfigPath,
		"--authorization-kubeconfig=" + kubeconfigPath,
	}
	if len(etcdServers) == 0 {
		return flags
	}
	flags = append(flags, "--etcd-servers="+strings.Join(etcdServers, ","))
	for _, f := range [][2]string{{"--etcd-cafile", etcdTLS.CAFile}, {"--etcd-certfile", etcdTLS.CertFile}, {"--etcd-keyfile", etcdTLS.KeyFile}} {
		if f[1] != "" {
			flags = append(flags, f[0]+"="+f[1])
		}
	}
	return flags
}

// ServingFlags are the flags that make such a server listen where s.URL says: its port, and its
// address when the URL names one (localhost: 127.0.0.1).
func (s Spec) ServingFlags() []string {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = fmt.Sprint(servicePort)
	}
	flags := []string{"--secure-port=" + port}
	switch host := u.Hostname(); {
	case host == "localhost":
		flags = append(flags, "--bind-address=127.0.0.1")
	case net.ParseIP(host) != nil:
		flags = append(flags, "--bind-address="+host)
	}
	return flags
}
