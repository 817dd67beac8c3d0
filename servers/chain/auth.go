package chain

import (
	"fmt"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/path"
	authorizationunion "k8s.io/apiserver/pkg/authorization/union"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/servers/core"
)

// Request headers through which the aggregator (the front proxy) tells aggregated API servers
// who the user is: kube-apiserver's --requestheader-* defaults as kubeadm sets them.
var (
	usernameHeaders     = []string{"X-Remote-User"}
	uidHeaders          = []string{"X-Remote-Uid"}
	groupHeaders        = []string{"X-Remote-Group"}
	extraHeaderPrefixes = []string{"X-Remote-Extra-"}
)

// authentication is how the chain knows who is calling, built as kube-apiserver's
// pkg/kubeapiserver/authenticator/config.go builds it: request headers from the front proxy,
// then x509 client certificates; whoever is left is anonymous.
type authentication struct {
	clientCA, frontProxyCA dynamiccertificates.CAContentProvider
	requestHeader          *authenticatorfactory.RequestHeaderConfig
	// published is what Core writes to kube-system/extension-apiserver-authentication.
	published core.ClusterAuthenticationInfo
}

func newAuthentication(files pki.Files) (*authentication, error) {
	clientCAPEM, err := readFile(files.ClientCACert)
	if err != nil {
		return nil, err
	}
	frontProxyCAPEM, err := readFile(files.FrontProxyCACert)
	if err != nil {
		return nil, err
	}
	clientCA, err := dynamiccertificates.NewStaticCAContent("client-ca", clientCAPEM)
	if err != nil {
		return nil, fmt.Errorf("client CA: %w", err)
	}
	frontProxyCA, err := dynamiccertificates.NewStaticCAContent("request-header", frontProxyCAPEM)
	if err != nil {
		return nil, fmt.Errorf("front-proxy CA: %w", err)
	}
	allowed := []string{pki.FrontProxyClientName}
	return &authentication{
		clientCA:     clientCA,
		frontProxyCA: frontProxyCA,
		requestHeader: &authenticatorfactory.RequestHeaderConfig{
			UsernameHeaders:     headerrequest.StaticStringSlice(usernameHeaders),
			UIDHeaders:          headerrequest.StaticStringSlice(uidHeaders),
			GroupHeaders:        headerrequest.StaticStringSlice(groupHeaders),
			ExtraHeaderPrefixes: headerrequest.StaticStringSlice(extraHeaderPrefixes),
			CAContentProvider:   frontProxyCA,
			AllowedClientNames:  headerrequest.StaticStringSlice(allowed),
		},
		published: core.ClusterAuthenticationInfo{
			ClientCA:                         clientCAPEM,
			RequestHeaderCA:                  frontProxyCAPEM,
			RequestHeaderAllowedNames:        allowed,
			RequestHeaderUsernameHeaders:     usernameHeaders,
			RequestHeaderUIDHeaders:          uidHeaders,
			RequestHeaderGroupHeaders:        groupHeaders,
			RequestHeaderExtraHeaderPrefixes: extraHeaderPrefixes,
		},
	}, nil
}

func (a *authentication) applyTo(c *genericapiserver.Config) error {
	// Ask TLS clients for certificates signed by either CA.
	if err := c.Authentication.ApplyClientCert(a.clientCA, c.SecureServing); err != nil {
		return fmt.Errorf("client CA: %w", err)
	}
	if err := c.Authentication.ApplyClientCert(a.frontProxyCA, c.SecureServing); err != nil {
		return fmt.Errorf("front-proxy CA: %w", err)
	}
	rh := a.requestHeader
	authenticators := []authenticator.Request{
		headerrequest.NewDynamicVerifyOptionsSecure(a.frontProxyCA.VerifyOptions, rh.AllowedClientNames,
			rh.UsernameHeaders, rh.UIDHeaders, rh.GroupHeaders, rh.ExtraHeaderPrefixes),
		x509.NewDynamic(a.clientCA.VerifyOptions, x509.CommonNameUserConversion),
	}
	authn := group.NewAuthenticatedGroupAdder(union.New(authenticators...))
	c.Authentication.Authenticator = union.NewFailOnError(authn, anonymous.NewAuthenticator(nil))
	// The filter strips these headers from requests it did not authenticate by them.
	c.Authentication.RequestHeaderConfig = rh
	return nil
}

// publicInfoPaths are what kube-apiserver's system:public-info-viewer ClusterRole grants to
// everyone, anonymous included.
var publicInfoPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}

// applyAuthorization allows system:masters everything and everyone the public-info paths, and
// denies the rest (403 with kube-apiserver's message).
func applyAuthorization(c *genericapiserver.Config) error {
	public, err := path.NewAuthorizer(publicInfoPaths)
	if err != nil {
		return err
	}
	authz, err := authorizationunion.New(
		authorizationunion.NamedAuthorizer{AuthorizerName: "system:masters", Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)},
		authorizationunion.NamedAuthorizer{AuthorizerName: "system:public-info-viewer", Authorizer: public},
	)
	if err != nil {
		return err
	}
	c.Authorization.Authorizer = authz
	return nil
}
