package chaintest_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/chaintest"
	"github.com/apichain/apichain/internal/version"
)

var things = schema.GroupVersion{Group: "things.example.com", Version: "v1"}

// TestAggregatedAPIServer registers an aggregated API server built on k8s.io/apiserver, running
// in the test, and reaches it through the chain as an ordinary user. The server authenticates
// the Aggregator's proxy by its front-proxy certificate and takes the user from X-Remote-User
// and X-Remote-Group, and asks the chain whether she may (a SubjectAccessReview): refused until
// RBAC in the chain allows her.
func TestAggregatedAPIServer(t *testing.T) {
	env := &chaintest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	}()

	// The setup a user writes: the server's identity, the server, its registration.
	delegation, err := env.Delegation(things)
	if err != nil {
		t.Fatal(err)
	}
	server := startThingsServer(t, delegation)
	if err := env.AddAPIService(chaintest.APIService{GroupVersion: things, URL: server.url, InsecureSkipTLSVerify: true}); err != nil {
		t.Fatal(err)
	}

	alice, err := env.AddUser(chaintest.User{Name: "alice", Groups: []string{"testers"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := "/apis/things.example.com/v1/namespaces/default/things"
	// The body too: it is the server's Status, with its message.
	get := func() (map[string]any, string, error) {
		var out map[string]any
		b, err := kubernetes.NewForConfigOrDie(alice.Config()).RESTClient().Get().AbsPath(path).DoRaw(context.Background())
		if err == nil {
			err = json.Unmarshal(b, &out)
		}
		return out, string(b), err
	}

	// The chain's head authorizes first, as kube-apiserver's does: without RBAC rights she is
	// refused there, and the server never sees the request.
	_, body, err := get()
	if !apierrors.IsForbidden(err) || !strings.Contains(body, `User \"alice\" cannot list resource \"things\"`) {
		t.Fatalf("alice before RBAC: %v\n%s\nwant Forbidden", err, body)
	}
	if got := server.last(); got.headers != nil {
		t.Errorf("a request refused by the chain reached the server: %v", got.headers)
	}

	// Allowed in the chain: the Aggregator names her in X-Remote-User and X-Remote-Group, the
	// server authenticates her from them and asks the chain again (its SubjectAccessReview).
	grantThings(t, cfg, "alice")
	var out map[string]any
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		out, _, err = get()
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("alice after RBAC: %v", err)
	}
	got := server.last()
	if got.headers.Get("X-Remote-User") != "alice" || !slices.Contains(got.headers.Values("X-Remote-Group"), "testers") {
		t.Errorf("the server received X-Remote-User %q, X-Remote-Group %q; want alice, testers", got.headers.Get("X-Remote-User"), got.headers.Values("X-Remote-Group"))
	}
	if out["user"] != "alice" {
		t.Errorf("the server authenticated %v, want alice", out["user"])
	}
	if got.user != "alice" || got.verb != "list" || got.decision != authorizer.DecisionAllow || !strings.Contains(got.reason, "things-reader") {
		t.Errorf("the server's SubjectAccessReview: user %q verb %q decision %v reason %q; want alice, list, allowed by RBAC (things-reader)", got.user, got.verb, got.decision, got.reason)
	}

	if err := env.RemoveAPIService(things); err != nil {
		t.Fatal(err)
	}
	// The Aggregator drops its proxy a moment after the APIService goes.
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		_, _, err := get()
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("after RemoveAPIService the group never answered NotFound")
	}
}

// thingsServer is a k8s.io/apiserver GenericAPIServer with delegated authentication and
// authorization, serving one group version by hand: its discovery, and a list of things that
// answers with the user it authenticated. It records what it saw of the last such request.
type thingsServer struct {
	url string
	mu  sync.Mutex
	seen
}

// seen is what the server saw of a request: the headers that reached it, and what its
// authorizer (the SubjectAccessReview to the chain) decided.
type seen struct {
	headers    http.Header
	user, verb string
	decision   authorizer.Decision
	reason     string
}

func (s *thingsServer) last() seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen
}

func startThingsServer(t *testing.T, d *chaintest.Delegation) *thingsServer {
	t.Helper()
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	config := genericapiserver.NewConfig(serializer.NewCodecFactory(scheme))
	config.EffectiveVersion = version.Effective()

	serving := genericoptions.NewSecureServingOptions()
	serving.ServerCert.CertDirectory = t.TempDir()
	l, port, err := genericoptions.CreateListener("tcp", "127.0.0.1:0", net.ListenConfig{})
	if err != nil {
		t.Fatal(err)
	}
	serving.Listener, serving.BindPort = l, port
	if err := serving.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{net.IPv4(127, 0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := serving.ApplyTo(&config.SecureServing); err != nil {
		t.Fatal(err)
	}
	s := &thingsServer{url: "https://" + l.Addr().String()}
	config.LoopbackClientConfig = &rest.Config{Host: s.url, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}

	authn := genericoptions.NewDelegatingAuthenticationOptions()
	authn.RemoteKubeConfigFile = d.KubeconfigPath
	if err := authn.ApplyTo(&config.Authentication, config.SecureServing, nil); err != nil {
		t.Fatal(err)
	}
	authz := genericoptions.NewDelegatingAuthorizationOptions()
	authz.RemoteKubeConfigFile = d.KubeconfigPath
	if err := authz.ApplyTo(&config.Authorization); err != nil {
		t.Fatal(err)
	}
	delegated := config.Authorization.Authorizer
	config.Authorization.Authorizer = authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		d, reason, err := delegated.Authorize(ctx, a)
		if a.GetResource() == "things" {
			s.mu.Lock()
			s.user, s.verb, s.decision, s.reason = a.GetUser().GetName(), a.GetVerb(), d, reason
			s.mu.Unlock()
		}
		return d, reason, err
	})
	// What reached the server, before its authentication filter takes the headers off.
	build := config.BuildHandlerChainFunc
	config.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
		chain := build(h, c)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/apis/things.example.com/v1/") {
				s.mu.Lock()
				s.headers = r.Header.Clone()
				s.mu.Unlock()
			}
			chain.ServeHTTP(w, r)
		})
	}

	server, err := config.Complete(nil).New("things", genericapiserver.NewEmptyDelegate())
	if err != nil {
		t.Fatal(err)
	}
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	server.Handler.NonGoRestfulMux.Handle("/apis/things.example.com/v1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: things.String(),
			APIResources: []metav1.APIResource{{Name: "things", Namespaced: true, Kind: "Thing", Verbs: metav1.Verbs{"list"}}},
		})
	}))
	server.Handler.NonGoRestfulMux.HandlePrefix("/apis/things.example.com/v1/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, _ := request.UserFrom(r.Context())
		writeJSON(w, map[string]any{"user": user.GetName(), "groups": user.GetGroups()})
	}))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := server.PrepareRun().RunWithContext(ctx); err != nil {
			t.Errorf("the things server: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

func grantThings(t *testing.T, cfg *rest.Config, user string) {
	t.Helper()
	rbac := kubernetes.NewForConfigOrDie(cfg).RbacV1()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "things-reader", Namespace: "default"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{things.Group}, Resources: []string{"things"}, Verbs: []string{"list"}}}}
	if _, err := rbac.Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "things-reader", Namespace: "default"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
	if _, err := rbac.RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
