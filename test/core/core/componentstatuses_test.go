package chain_test

import (
	"context"
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

	"github.com/apichain/apichain/internal/testchain"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/reference"
)

// healthOf lists the components as name → "Healthy: message" or "Unhealthy: message",
// checking the deprecation warning that comes with every answer.
func healthOf(t *testing.T, cfg *rest.Config) map[string]string {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	w := &warnings{}
	cfg.WarningHandler = w
	list, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().ComponentStatuses().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1 ComponentStatus is deprecated in v1.19+"; !slices.Contains(w.got, want) {
		t.Errorf("warnings %q, want %q", w.got, want)
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
	if got := healthOf(t, shared.Admin); !mapsEqual(got, want) {
		t.Errorf("components %v, want %v", got, want)
	}
	cs, _ := clients(t)
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
	resp, body := do(t, shared.Admin, http.MethodPost, "/api/v1/componentstatuses", []byte(`{"apiVersion":"v1","kind":"ComponentStatus","metadata":{"name":"x"}}`), "application/json")
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(body), `"reason":"MethodNotAllowed"`) {
		t.Errorf("create: %d %s, want 405 MethodNotAllowed", resp.StatusCode, body)
	}

	out, err := kubectl(t, "", "get", "componentstatuses")
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

// apiResourceLines parses the output of `kubectl api-resources -o wide` by its header's
// columns: "group version/name" → the line's fields joined by "|".
func apiResourceLines(out string) map[string]string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := lines[0]
	var starts []int
	for _, c := range []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"} {
		starts = append(starts, strings.Index(header, c))
	}
	parsed := map[string]string{}
	for _, l := range lines[1:] {
		var fields []string
		for i, s := range starts {
			end := len(l)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(l))
			}
			f := ""
			if s < len(l) {
				f = strings.TrimSpace(l[s:end])
			}
			fields = append(fields, f)
		}
		parsed[fields[2]+"/"+fields[0]] = strings.Join(fields, "|")
	}
	return parsed
}

// TestKubectlListsTheNewResourcesAsKubeAPIServer: `kubectl api-resources -o wide` shows the
// resources of resource.k8s.io, the newer certificates.k8s.io kinds, storagemigration.k8s.io
// and componentstatuses as it shows kube-apiserver's.
func TestKubectlListsTheNewResourcesAsKubeAPIServer(t *testing.T) {
	out, err := kubectl(t, "", "api-resources", "-o", "wide")
	if err != nil {
		t.Fatalf("kubectl api-resources: %v\n%s", err, out)
	}
	got, want := apiResourceLines(out), apiResourceLines(string(reference.Read(t, "api-resources.txt")))
	for _, key := range []string{
		"v1/componentstatuses",
		"certificates.k8s.io/v1/clustertrustbundles", "certificates.k8s.io/v1/podcertificaterequests",
		"resource.k8s.io/v1/deviceclasses", "resource.k8s.io/v1/devicetaintrules", "resource.k8s.io/v1/resourceclaims",
		"resource.k8s.io/v1/resourceclaimtemplates", "resource.k8s.io/v1/resourceslices",
		"storagemigration.k8s.io/v1/storageversionmigrations",
	} {
		if want[key] == "" || got[key] != want[key] {
			t.Errorf("%s:\n got  %s\n want %s", key, got[key], want[key])
		}
	}
}
