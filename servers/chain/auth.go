package chain

import (
	"crypto"
	"fmt"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/request/websocket"
	"k8s.io/apiserver/pkg/authentication/request/x509"
	tokencache "k8s.io/apiserver/pkg/authentication/token/cache"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	tokenunion "k8s.io/apiserver/pkg/authentication/token/union"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authorizationunion "k8s.io/apiserver/pkg/authorization/union"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/internal/rbac"
	"github.com/apichain/apichain/internal/serviceaccount"
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
// x509 client certificates, then bearer tokens (--token-auth-file, then service account
// tokens); whoever is left is anonymous.
type authentication struct {
	clientCA, frontProxyCA dynamiccertificates.CAContentProvider
	requestHeader          *authenticatorfactory.RequestHeaderConfig
	// published is what Core writes to kube-system/extension-apiserver-authentication.
	published core.ClusterAuthenticationInfo

	// tokenAuthFile is --token-auth-file, empty for none.
	tokenAuthFile string
	// serviceAccountKeys verify service account tokens (sa.pub, as --service-account-key-file);
	// serviceAccountTokens signs them (sa.key, as --service-account-signing-key-file) for
	// Core's serviceaccounts/token.
	serviceAccountKeys   []crypto.PublicKey
	serviceAccountTokens serviceaccount.TokenGenerator
}

// apiAudiences are kube-apiserver's --api-audiences when only --service-account-issuer is set:
// the issuer.
var apiAudiences = authenticator.Audiences{serviceaccount.DefaultIssuer}

func newAuthentication(o CompletedOptions, files pki.Files) (*authentication, error) {
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
	signingKey, err := serviceaccount.LoadSigningKey(files.ServiceAccountKey)
	if err != nil {
		return nil, fmt.Errorf("service account signing key: %w", err)
	}
	tokens, err := serviceaccount.NewSigner(serviceaccount.DefaultIssuer, signingKey)
	if err != nil {
		return nil, fmt.Errorf("service account token generator: %w", err)
	}
	keys, err := serviceaccount.LoadPublicKeys(files.ServiceAccountPub)
	if err != nil {
		return nil, fmt.Errorf("service account public keys: %w", err)
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
		tokenAuthFile:        o.TokenAuthFile,
		serviceAccountKeys:   keys,
		serviceAccountTokens: tokens,
	}, nil
}

// applyTo sets c's authenticator. Service account tokens are checked against the objects they
// name through sharedInformers, falling back to client (the loopback client). Traced, each
// authenticator names itself when it accepts a request (authtrace.go).
func (a *authentication) applyTo(c *genericapiserver.Config, sharedInformers informers.SharedInformerFactory, client kubernetes.Interface, traced bool) error {
	// Ask TLS clients for certificates signed by either CA.
	if err := c.Authentication.ApplyClientCert(a.clientCA, c.SecureServing); err != nil {
		return fmt.Errorf("client CA: %w", err)
	}
	if err := c.Authentication.ApplyClientCert(a.frontProxyCA, c.SecureServing); err != nil {
		return fmt.Errorf("front-proxy CA: %w", err)
	}
	c.Authentication.APIAudiences = apiAudiences

	var tokenAuthenticators []authenticator.Token
	if a.tokenAuthFile != "" {
		tokenAuth, err := tokenfile.NewCSV(a.tokenAuthFile)
		if err != nil {
			return fmt.Errorf("--token-auth-file: %w", err)
		}
		tokenAuthenticators = append(tokenAuthenticators, named[authenticator.Token](traced, "token-file", cachedToken(authenticator.WrapAudienceAgnosticToken(apiAudiences, tokenAuth)), namedToken))
	}
	lookup, err := serviceaccount.InformerLookup(client, sharedInformers)
	if err != nil {
		return fmt.Errorf("service account tokens: %w", err)
	}
	serviceAccountTokens, err := serviceaccount.NewAuthenticator(serviceaccount.DefaultIssuer, a.serviceAccountKeys, apiAudiences, lookup)
	if err != nil {
		return fmt.Errorf("service account tokens: %w", err)
	}
	tokenAuthenticators = append(tokenAuthenticators, named[authenticator.Token](traced, "service-account", cachedToken(serviceAccountTokens), namedToken))
	tokenAuth := tokenunion.New(tokenAuthenticators...)

	rh := a.requestHeader
	authenticators := []authenticator.Request{
		named[authenticator.Request](traced, "front-proxy", headerrequest.NewDynamicVerifyOptionsSecure(a.frontProxyCA.VerifyOptions, rh.AllowedClientNames,
			rh.UsernameHeaders, rh.UIDHeaders, rh.GroupHeaders, rh.ExtraHeaderPrefixes), namedAuthenticator),
		named[authenticator.Request](traced, "x509", x509.NewDynamic(a.clientCA.VerifyOptions, x509.CommonNameUserConversion), namedAuthenticator),
		// Bearer tokens: a token no token authenticator accepts is an error (401), never anonymous.
		named[authenticator.Request](traced, "token", bearertoken.New(tokenAuth), namedAuthenticator),
		named[authenticator.Request](traced, "token (websocket protocol)", websocket.NewProtocolAuthenticator(tokenAuth), namedAuthenticator),
	}
	authn := group.NewAuthenticatedGroupAdder(union.New(authenticators...))
	c.Authentication.Authenticator = union.NewFailOnError(authn, named[authenticator.Request](traced, "anonymous", anonymous.NewAuthenticator(nil), namedAuthenticator))
	// The filter strips these headers from requests it did not authenticate by them.
	c.Authentication.RequestHeaderConfig = rh
	return nil
}

// tokenSuccessCacheTTL is how long kube-apiserver keeps a token's successful authentication
// (its BuiltInAuthenticationOptions' TokenSuccessCacheTTL; failures are not kept): a token used
// again within it is not checked again, the signature and the lookup of the objects it names,
// and a token revoked meanwhile (its service account, secret or pod deleted) is accepted until
// it runs out, as by kube-apiserver.
const tokenSuccessCacheTTL = 10 * time.Second

// cachedToken is a token authenticator behind kube-apiserver's cache. kube-apiserver puts the
// cache in front of the union of its token authenticators; here each has its own, inside the
// name the trace gives it (namedToken): the cache checks a token on a context of its own, which
// does not carry the request's trace, and a cached answer must still say who gave it.
func cachedToken(t authenticator.Token) authenticator.Token {
	return tokencache.New(t, true, tokenSuccessCacheTTL, 0)
}

// applyAuthorization is kube-apiserver's --authorization-mode=RBAC
// (pkg/kubeapiserver/authorizer): system:masters may do anything, then RBAC decides, reading
// Roles and bindings through the chain's shared informers (internal/rbac). Whatever RBAC does
// not allow is denied (403 with kube-apiserver's message). RBAC also answers
// SelfSubjectRulesReviews, as c.RuleResolver.
func applyAuthorization(c *genericapiserver.Config, sharedInformers informers.SharedInformerFactory, traced bool) error {
	rbacAuthorizer := rbac.New(rbac.FromInformers(sharedInformers.Rbac().V1()))
	const privileged = "kubernetes.io/system-privileged-group"
	authz, err := authorizationunion.New(
		authorizationunion.NamedAuthorizer{AuthorizerName: privileged, Authorizer: named[authorizer.Authorizer](traced, privileged, authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup), namedAuthorizer)},
		// RBAC makes no conditional decisions: AuthorizerFunc answers the conditions-aware
		// questions with its plain decision.
		authorizationunion.NamedAuthorizer{AuthorizerName: "rbac", Authorizer: named[authorizer.Authorizer](traced, "rbac", authorizer.AuthorizerFunc(rbacAuthorizer.Authorize), namedAuthorizer)},
	)
	if err != nil {
		return err
	}
	c.Authorization.Authorizer = authz
	if traced {
		// Authorization's span, with the decision, the authorizer and its reason (authtrace.go).
		c.Authorization.Authorizer = tracedAuthorizer(authz)
	}
	c.RuleResolver = authorizationunion.NewRuleResolvers(rbacAuthorizer)
	return nil
}

// named wraps x with wrap under name when traced, so that the trace can say which one decided.
func named[T any](traced bool, name string, x T, wrap func(string, T) T) T {
	if !traced {
		return x
	}
	return wrap(name, x)
}
