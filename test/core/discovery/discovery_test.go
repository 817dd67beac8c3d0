package discovery_test

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/reference"
	"github.com/apichain/apichain/test/testchain"
)

// apiResource is one line of `kubectl api-resources -o wide`.
type apiResource struct {
	name, shortNames, apiVersion, namespaced, kind, verbs, categories string
}

// referenceAPIResources reads what the real kube-apiserver v1.37.2 lists
// (test/reference/api-resources.txt).
func referenceAPIResources(t *testing.T) map[string]apiResource {
	t.Helper()
	f, err := os.Open(reference.Path("api-resources.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	header := sc.Text()
	cols := []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"}
	var starts []int
	for _, c := range cols {
		starts = append(starts, strings.Index(header, c))
	}
	field := func(line string, i int) string {
		end := len(line)
		if i+1 < len(starts) {
			end = min(starts[i+1], len(line))
		}
		if starts[i] >= len(line) {
			return ""
		}
		return strings.TrimSpace(line[starts[i]:end])
	}
	out := map[string]apiResource{}
	for sc.Scan() {
		l := sc.Text()
		r := apiResource{field(l, 0), field(l, 1), field(l, 2), field(l, 3), field(l, 4), field(l, 5), field(l, 6)}
		out[r.apiVersion+"/"+r.name] = r
	}
	return out
}

// servedAPIResources is what the chain lists, formatted as kubectl formats it.
func servedAPIResources(t *testing.T, dc discovery.DiscoveryInterface) map[string]apiResource {
	t.Helper()
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	out := map[string]apiResource{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			verbs := slices.Clone([]string(r.Verbs))
			slices.Sort(verbs)
			out[l.GroupVersion+"/"+r.Name] = apiResource{
				name: r.Name, shortNames: strings.Join(r.ShortNames, ","), apiVersion: l.GroupVersion,
				namespaced: map[bool]string{true: "true", false: "false"}[r.Namespaced], kind: r.Kind,
				verbs: strings.Join(verbs, ","), categories: strings.Join(r.Categories, ","),
			}
		}
	}
	return out
}

// TestAPIResourcesMatchKubeAPIServer checks every resource the chain serves against the real
// kube-apiserver's `kubectl api-resources -o wide`: same names, short names, versions, scope,
// kinds, verbs and categories, and every resource kube-apiserver serves is served.
func TestAPIResourcesMatchKubeAPIServer(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	served := servedAPIResources(t, cs.Discovery())
	reference := referenceAPIResources(t)
	for key, got := range served {
		want, ok := reference[key]
		if !ok {
			t.Errorf("%s is served but kube-apiserver does not serve it", key)
			continue
		}
		if got != want {
			t.Errorf("%s:\n got  %+v\n want %+v", key, got, want)
		}
	}
	for key := range reference {
		if _, ok := served[key]; !ok {
			t.Errorf("%s is not served", key)
		}
	}
}

func TestSubresourcesAreServed(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	list, err := cs.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.APIResources {
		names = append(names, r.Name)
	}
	for _, want := range []string{"namespaces/status", "namespaces/finalize", "services/status", "nodes/status", "pods/status", "pods/binding"} {
		if !slices.Contains(names, want) {
			t.Errorf("v1 does not list %s (has %v)", want, names)
		}
	}
}

func TestLegacyAndAggregatedDiscoveryListEveryGroup(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	groups := []string{"apiregistration.k8s.io", "apiextensions.k8s.io", "coordination.k8s.io", "discovery.k8s.io"}
	// Legacy /apis (APIGroupList).
	var legacy metav1.APIGroupList
	if err := cs.Discovery().RESTClient().Get().AbsPath("/apis").SetHeader("Accept", "application/json").Do(context.Background()).Into(&legacy); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range legacy.Groups {
		got = append(got, g.Name)
	}
	for _, g := range groups {
		if !slices.Contains(got, g) {
			t.Errorf("legacy /apis lacks %s: %v", g, got)
		}
	}
	// Aggregated discovery (apidiscovery.k8s.io/v2), which client-go prefers.
	ad, _, err := cs.Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, g := range ad {
		got = append(got, g.Name)
	}
	for _, g := range append(groups, "") {
		if !slices.Contains(got, g) {
			t.Errorf("aggregated discovery lacks group %q: %v", g, got)
		}
	}
}

func TestLocalAPIServicesAreAvailable(t *testing.T) {
	ac := aggregatorclient.NewForConfigOrDie(shared.Admin)
	want := []string{"v1.", "v1.apiextensions.k8s.io", "v1.coordination.k8s.io", "v1.discovery.k8s.io",
		"v1.node.k8s.io", "v1.flowcontrol.apiserver.k8s.io"}
	for _, name := range want {
		svc, err := ac.ApiregistrationV1().APIServices().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("APIService %s: %v", name, err)
			continue
		}
		if svc.Spec.Service != nil {
			t.Errorf("APIService %s is not Local: %+v", name, svc.Spec.Service)
		}
		if !coretest.Available(svc) {
			t.Errorf("APIService %s is not Available: %+v", name, svc.Status)
		}
	}
}

// TestKubectlAPIResourcesMatchKubeAPIServer: `kubectl api-resources -o wide` prints a line for
// each resource as kube-apiserver's does: names, short names, version, scope, kind, verbs and
// categories.
func TestKubectlAPIResourcesMatchKubeAPIServer(t *testing.T) {
	out, err := testchain.Kubectl(t, shared, "api-resources", "-o", "wide")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := referenceAPIResources(t)
	fields := func(line string) string { return strings.Join(strings.Fields(line), " ") }
	for _, r := range want {
		line := fields(strings.Join([]string{r.name, r.shortNames, r.apiVersion, r.namespaced, r.kind, r.verbs, r.categories}, " "))
		if !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool { return fields(l) == line }) {
			t.Errorf("kubectl api-resources has no line %q", line)
		}
	}
}
