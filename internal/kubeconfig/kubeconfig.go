// Package kubeconfig writes the kubeconfig files the chain hands out (admin.kubeconfig), with
// certificates embedded so that a file works on its own, from any directory.
package kubeconfig

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Name is the cluster, user-context and context name in files the chain writes.
const Name = "apichain"

// User is one client identity: an x509 client certificate and key, PEM encoded, or a bearer
// token (a ServiceAccount's).
type User struct {
	Name      string
	Cert, Key []byte
	Token     string
}

// Build returns a kubeconfig for server, trusting caPEM, as user.
func Build(server string, caPEM []byte, user User) *clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[Name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user.Name] = &clientcmdapi.AuthInfo{ClientCertificateData: user.Cert, ClientKeyData: user.Key, Token: user.Token}
	cfg.Contexts[Name] = &clientcmdapi.Context{Cluster: Name, AuthInfo: user.Name}
	cfg.CurrentContext = Name
	return cfg
}

// Write writes cfg to path (mode 0600: it holds a private key), replacing it atomically.
func Write(path string, cfg *clientcmdapi.Config) error {
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	return os.Rename(tmp, path)
}

// RESTConfig turns cfg into a client-go config.
func RESTConfig(cfg *clientcmdapi.Config) (*rest.Config, error) {
	return clientcmd.NewDefaultClientConfig(*cfg, &clientcmd.ConfigOverrides{}).ClientConfig()
}
