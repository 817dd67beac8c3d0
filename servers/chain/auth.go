package chain

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/request/x509"
	tokenunion "k8s.io/apiserver/pkg/authentication/token/union"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
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
		// Bearer tokens: a token no token authenticator accepts is an error (401), never anonymous.
		bearertoken.New(tokenunion.New()),
	}
	authn := group.NewAuthenticatedGroupAdder(union.New(authenticators...))
	c.Authentication.Authenticator = union.NewFailOnError(authn, anonymous.NewAuthenticator(nil))
	// The filter strips these headers from requests it did not authenticate by them.
	c.Authentication.RequestHeaderConfig = rh
	return nil
}

// applyAuthorization allows system:masters everything; everyone what kube-apiserver's
// system:public-info-viewer grants; authenticated users what system:discovery and
// system:basic-user grant; and denies the rest (403 with kube-apiserver's message). RBAC will
// take over the last three from kube-apiserver's bootstrap policy.
func applyAuthorization(c *genericapiserver.Config) error {
	authz, err := authorizationunion.New(
		authorizationunion.NamedAuthorizer{AuthorizerName: "system:masters", Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)},
		authorizationunion.NamedAuthorizer{AuthorizerName: "bootstrap-roles", Authorizer: authorizer.AuthorizerFunc(bootstrapRoles)},
	)
	if err != nil {
		return err
	}
	c.Authorization.Authorizer = authz
	return nil
}

var (
	// system:public-info-viewer, bound to everyone.
	publicInfoPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}
	// system:discovery, bound to system:authenticated.
	discoveryPaths = []string{"/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"}
	// system:basic-user, bound to system:authenticated: who am I, what may I do.
	basicUserResources = map[string]string{
		"selfsubjectreviews":       "authentication.k8s.io",
		"selfsubjectaccessreviews": "authorization.k8s.io",
		"selfsubjectrulesreviews":  "authorization.k8s.io",
	}
)

// bootstrapRoles grants what three of kube-apiserver's bootstrap ClusterRoles grant
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go).
func bootstrapRoles(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	authenticated := a.GetUser() != nil && slices.Contains(a.GetUser().GetGroups(), user.AllAuthenticated)
	if !a.IsResourceRequest() {
		if a.GetVerb() == "get" && (matchPath(publicInfoPaths, a.GetPath()) || (authenticated && matchPath(discoveryPaths, a.GetPath()))) {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	}
	if authenticated && a.GetVerb() == "create" && a.GetSubresource() == "" {
		if group, ok := basicUserResources[a.GetResource()]; ok && group == a.GetAPIGroup() {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// matchPath matches RBAC nonResourceURLs: exact, or a prefix ending in "*".
func matchPath(patterns []string, path string) bool {
	for _, p := range patterns {
		if p == path || (strings.HasSuffix(p, "*") && strings.HasPrefix(path, strings.TrimSuffix(p, "*"))) {
			return true
		}
	}
	return false
}
