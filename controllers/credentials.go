package controllers

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// Credentials are who the controllers act as, as in a cluster where kube-controller-manager,
// kube-scheduler and the kubelets each have credentials of their own. With them, the chain
// authenticates, authorizes (RBAC, with the bootstrap roles only) and classifies (API Priority
// and Fairness) each controller's requests as kube-apiserver would.
type Credentials struct {
	// ControllerManager is the controller manager's own configuration (kubeadm's
	// controller-manager.conf: user system:kube-controller-manager). Context.Client and
	// Context.Metadata must be made from it: the shared informers, discovery and leader election
	// use it, and it asks for the tokens of the controllers' service accounts.
	ControllerManager *rest.Config
	// Scheduler is the scheduler's (kubeadm's scheduler.conf: user system:kube-scheduler).
	Scheduler *rest.Config
	// Node returns the configuration of the named node's kubelet (user system:node:<name>, in
	// group system:nodes).
	Node func(name string) (*rest.Config, error)
}

// Clients are the clients a controller acts through.
type Clients struct {
	Client   kubernetes.Interface
	Metadata metadata.Interface
}

// tokenLifetime is how long the tokens of the controllers' service accounts are valid; they are
// renewed when 80% of it has passed (kube-controller-manager asks for an hour too, and renews
// at the same point).
const tokenLifetime = time.Hour

// clientsFor returns the clients ctrl acts through: its service account's, the scheduler's, or
// (without Credentials, or for a controller with neither) the Context's own.
func (c *Context) clientsFor(ctrl Controller) (Clients, error) {
	own := Clients{Client: c.Client, Metadata: c.Metadata}
	if c.Credentials == nil {
		return own, nil
	}
	var cfg *rest.Config
	switch {
	case ctrl.ServiceAccount != "":
		cfg = serviceAccountConfig(c.Credentials.ControllerManager, c.Client, ctrl.ServiceAccount)
	case ctrl.Name == Scheduler:
		cfg = c.Credentials.Scheduler
	default:
		return own, nil
	}
	// One HTTP client, and so one connection, for both.
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return Clients{}, err
	}
	client, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return Clients{}, err
	}
	meta, err := metadata.NewForConfigAndClient(metadata.ConfigFor(cfg), hc)
	if err != nil {
		return Clients{}, err
	}
	return Clients{Client: client, Metadata: meta}, nil
}

// serviceAccountConfig is what kube-controller-manager's --use-service-account-credentials
// gives a controller: requests as the service account kube-system/<name>
// (system:serviceaccount:kube-system:<name>), which the bootstrap policy binds to the
// controller's role (system:controller:<name>). The manager's client (manager, acting as
// system:kube-controller-manager, whose role allows exactly this) creates the account when it
// is missing and asks for its tokens (TokenRequest); they are asked for on the first request
// and renewed before they expire.
func serviceAccountConfig(manager *rest.Config, client kubernetes.Interface, name string) *rest.Config {
	cfg := rest.CopyConfig(manager)
	// Not the manager's certificate: the token alone says who calls.
	cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = nil, nil, "", ""
	cfg.BearerToken, cfg.BearerTokenFile = "", ""
	cfg.UserAgent = rest.DefaultKubernetesUserAgent() + "/" + name
	t := &saToken{client: client, name: name}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &withToken{token: t, next: rt} })
	return cfg
}

// saToken is the current token of one service account.
type saToken struct {
	client kubernetes.Interface
	name   string

	mu      sync.Mutex
	token   string
	renewAt time.Time
}

// get returns the token, asking for a new one when there is none or it is due for renewal.
func (t *saToken) get(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if t.token != "" && now.Before(t.renewAt) {
		return t.token, nil
	}
	accounts := t.client.CoreV1().ServiceAccounts(metav1.NamespaceSystem)
	if _, err := accounts.Get(ctx, t.name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: t.name, Namespace: metav1.NamespaceSystem}}
		if _, err := accounts.Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("creating service account %s/%s: %w", metav1.NamespaceSystem, t.name, err)
		}
	} else if err != nil {
		return "", fmt.Errorf("reading service account %s/%s: %w", metav1.NamespaceSystem, t.name, err)
	}
	seconds := int64(tokenLifetime.Seconds())
	tr, err := accounts.CreateToken(ctx, t.name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for service account %s/%s: %w", metav1.NamespaceSystem, t.name, err)
	}
	issued, expires := now, tr.Status.ExpirationTimestamp.Time
	t.token, t.renewAt = tr.Status.Token, issued.Add(expires.Sub(issued)*8/10)
	return t.token, nil
}

// forget drops a token the chain refused (its account was deleted and made again, say).
func (t *saToken) forget(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token == token {
		t.token = ""
	}
}

// withToken sends each request with the service account's token.
type withToken struct {
	token *saToken
	next  http.RoundTripper
}

func (w *withToken) RoundTrip(req *http.Request) (*http.Response, error) {
	token, err := w.token.get(req.Context())
	if err != nil {
		return nil, err
	}
	req = utilnet.CloneRequest(req)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := w.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		w.token.forget(token)
	}
	return resp, err
}

// WrappedRoundTripper lets client-go see through the wrapper (for connection upgrades).
func (w *withToken) WrappedRoundTripper() http.RoundTripper { return w.next }
