package flowcontrol_test

import (
	"context"
	"net/http"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/test/testchain"
)

// TestClassification: the head's APF filter puts each request where kube-apiserver's
// bootstrap configuration puts it, by who sends it and what it asks, and names the FlowSchema
// and the priority level in the response headers. The identities are real (client
// certificates of the chain's client CA, ServiceAccount tokens, no credentials), except the
// loopback client's, which only the chain holds: it is impersonated.
func TestClassification(t *testing.T) {
	n := waitDigested(t, shared)

	// The loopback client is system:apiserver in system:masters (servers/chain/loopback.go).
	loopback := rest.CopyConfig(shared.Admin)
	loopback.Impersonate = rest.ImpersonationConfig{UserName: "system:apiserver", Groups: []string{"system:masters"}}
	ns := testchain.Namespace(t, shared)

	tests := []struct {
		who, path         string
		cfg               *rest.Config
		flowSchema, level string
		code              int
	}{
		{"admin, in system:masters", "/api/v1/namespaces", shared.Admin, "exempt", "exempt", http.StatusOK},
		{"the loopback client (the servers' own hooks; not the controllers)", "/api/v1/pods",
			loopback, "exempt", "exempt", http.StatusOK},
		{"anyone, asking /readyz", "/readyz", rest.AnonymousClientConfig(shared.Admin), "probes", "exempt", http.StatusOK},
		{"anyone, asking for pods", "/api/v1/pods", rest.AnonymousClientConfig(shared.Admin), "global-default", "global-default", http.StatusForbidden},
		{"a user in no group", "/api", testchain.UserConfig(t, shared, "alice"), "global-default", "global-default", http.StatusOK},
		{"the chain's metrics server (system:metrics-server)", "/api/v1/nodes", testchain.UserConfig(t, shared, "system:metrics-server"),
			"global-default", "global-default", http.StatusOK},
		{"a ServiceAccount", "/api", token(t, ns, "robot"), "service-accounts", "workload-low", http.StatusOK},
		{"a ServiceAccount of kube-system", "/api", token(t, "kube-system", "apf-test-robot"),
			"kube-system-service-accounts", "workload-high", http.StatusOK},
		{"kube-controller-manager's user", "/api/v1/namespaces", testchain.UserConfig(t, shared, "system:kube-controller-manager"),
			"kube-controller-manager", "workload-high", http.StatusOK},
		{"kube-controller-manager's user, leader election", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager",
			testchain.UserConfig(t, shared, "system:kube-controller-manager"), "system-leader-election", "leader-election", http.StatusNotFound},
		{"kube-scheduler's user", "/api/v1/nodes", testchain.UserConfig(t, shared, "system:kube-scheduler"),
			"kube-scheduler", "workload-high", http.StatusOK},
		// The chain has no Node authorizer: RBAC grants the group system:nodes the role
		// system:node (internal/rbac/bootstrappolicy/apichain.yaml).
		{"a kubelet's user, asking for pods", "/api/v1/pods", testchain.UserConfig(t, shared, "system:node:n1", "system:nodes"),
			"system-nodes", "system", http.StatusOK},
		{"a kubelet's user, asking for its node", "/api/v1/nodes/n1", testchain.UserConfig(t, shared, "system:node:n1", "system:nodes"),
			"system-node-high", "node-high", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.who, func(t *testing.T) {
			fs, pl, code := classify(t, tt.cfg, tt.path, n)
			if fs != tt.flowSchema || pl != tt.level || code != tt.code {
				t.Errorf("GET %s: FlowSchema %s, priority level %s, %d; want %s, %s, %d", tt.path, fs, pl, code, tt.flowSchema, tt.level, tt.code)
			}
		})
	}
}

// token is a client configuration holding a token of ServiceAccount namespace/name, created
// for it.
func token(t *testing.T, namespace, name string) *rest.Config {
	t.Helper()
	ctx := context.Background()
	cs, _ := testchain.Clients(t, shared)
	if _, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().ServiceAccounts(namespace).Delete(ctx, name, metav1.DeleteOptions{}) })
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(shared.Admin)
	cfg.BearerToken = tr.Status.Token
	return cfg
}
