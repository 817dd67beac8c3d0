package core_test

import (
	"context"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// healthOf lists the components as name → "Healthy: message" or "Unhealthy: message",
// checking the deprecation warning that comes with every answer.
func healthOf(t *testing.T, cfg *rest.Config) map[string]string {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	w := &coretest.Warnings{}
	cfg.WarningHandler = w
	list, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().ComponentStatuses().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1 ComponentStatus is deprecated in v1.19+"; !slices.Contains(w.Got, want) {
		t.Errorf("warnings %q, want %q", w.Got, want)
	}
	health := map[string]string{}
	for _, cs := range list.Items {
		if len(cs.Conditions) != 1 || cs.Conditions[0].Type != corev1.ComponentHealthy {
			t.Fatalf("%s: conditions %+v", cs.Name, cs.Conditions)
		}
		c := cs.Conditions[0]
		state := map[corev1.ConditionStatus]string{corev1.ConditionTrue: "Healthy", corev1.ConditionFalse: "Unhealthy"}[c.Status]
		health[cs.Name] = state + ": " + c.Message + c.Error
	}
	return health
}

// TestComponentStatusesAsKubeAPIServer: read-only, etcd-0 probed, and the scheduler and
// controller-manager as the test chain runs them: not at all (no --controllers).
func TestComponentStatusesAsKubeAPIServer(t *testing.T) {
	want := map[string]string{
		"etcd-0":             "Healthy: ok",
		"scheduler":          "Unhealthy: not running: --controllers does not enable the scheduler",
		"controller-manager": "Unhealthy: not running: --controllers enables none of the controller-manager's controllers",
	}
	if got := healthOf(t, shared.Admin); !maps.Equal(got, want) {
		t.Errorf("components %v, want %v", got, want)
	}
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	etcd, err := cs.CoreV1().ComponentStatuses().Get(ctx, "etcd-0", metav1.GetOptions{})
	if err != nil || etcd.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("get etcd-0: %v %+v", err, etcd)
	}
	if _, err := cs.CoreV1().ComponentStatuses().Get(ctx, "etcd-9", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get etcd-9: %v, want NotFound", err)
	}
	if list, err := cs.CoreV1().ComponentStatuses().List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=scheduler"}); err != nil || len(list.Items) != 1 {
		t.Errorf("list by name: %v %+v", err, list)
	}
	resp, body := testchain.Do(t, shared.Admin, http.MethodPost, "/api/v1/componentstatuses", []byte(`{"apiVersion":"v1","kind":"ComponentStatus","metadata":{"name":"x"}}`), "application/json")
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(body), `"reason":"MethodNotAllowed"`) {
		t.Errorf("create: %d %s, want 405 MethodNotAllowed", resp.StatusCode, body)
	}

	out, err := testchain.Kubectl(t, shared, "get", "componentstatuses")
	for _, line := range []string{`Warning: v1 ComponentStatus is deprecated in v1.19+`, `(?m)^NAME\s+STATUS\s+MESSAGE\s+ERROR$`, `(?m)^etcd-0\s+Healthy\s+ok\s*$`,
		`(?m)^scheduler\s+Unhealthy\s+not running: --controllers does not enable the scheduler\s*$`} {
		if !regexp.MustCompile(line).MatchString(out) {
			t.Errorf("kubectl get cs: %v, no match for %q:\n%s", err, line, out)
		}
	}
}

// TestComponentStatusesOfALeaderAndAFollower: two instances on one etcd (the second's etcd is
// external, the first's socket), both running the scheduler: the leader reports it Healthy, the
// other says who leads; both see etcd healthy.
func TestComponentStatusesOfALeaderAndAFollower(t *testing.T) {
	leader := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{"scheduler"} })
	dir := filepath.Dir(leader.KubeconfigPath)
	endpoints, err := os.ReadFile(filepath.Join(dir, "etcd-endpoints"))
	if err != nil {
		t.Fatal(err)
	}
	follower := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{"scheduler"}
		o.EtcdServers = strings.Fields(string(endpoints))
		o.PKIDir = filepath.Join(dir, "pki")
	})
	if got := healthOf(t, leader.Admin); got["scheduler"] != "Healthy: ok" || got["etcd-0"] != "Healthy: ok" ||
		got["controller-manager"] != "Unhealthy: not running: --controllers enables none of the controller-manager's controllers" {
		t.Errorf("the leader's components: %v", got)
	}
	got := healthOf(t, follower.Admin)
	if got["etcd-0"] != "Healthy: ok" || !regexp.MustCompile(`^Unhealthy: not the leader: apiserver-\S+ holds the Lease kube-system/apichain-controller-manager, this instance is apiserver-\S+$`).MatchString(got["scheduler"]) {
		t.Errorf("the follower's components: %v", got)
	}
}
