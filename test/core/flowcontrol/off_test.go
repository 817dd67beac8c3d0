package flowcontrol_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestPriorityAndFairnessOff: with --enable-priority-and-fairness=false the head runs the
// max-in-flight limits instead, as kube-apiserver does: no request is classified (no
// X-Kubernetes-PF-* headers), the dumps are not served, /readyz lists the max-in-flight hook
// and not the configuration controller's. The objects are still kept: they belong to the API,
// not to the filter.
func TestPriorityAndFairnessOff(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.EnablePriorityAndFairness = false })
	cs, _ := testchain.Clients(t, c)

	resp, body := testchain.Get(t, c, "/api/v1/namespaces")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/namespaces: %d %s", resp.StatusCode, body)
	}
	for _, h := range []string{"X-Kubernetes-PF-FlowSchema-UID", "X-Kubernetes-PF-PriorityLevel-UID"} {
		if v := resp.Header.Get(h); v != "" {
			t.Errorf("%s: %s, want no header without API Priority and Fairness", h, v)
		}
	}
	dump(t, c.Admin, "dump_priority_levels", http.StatusNotFound)

	_, body = testchain.Get(t, c, "/readyz?verbose")
	for hook, want := range map[string]bool{
		"poststarthook/max-in-flight-filter":                  true,
		"poststarthook/priority-and-fairness-config-producer": true,
		"poststarthook/priority-and-fairness-config-consumer": false,
		"poststarthook/priority-and-fairness-filter":          false,
	} {
		if got := strings.Contains(string(body), "[+]"+hook+" ok"); got != want {
			t.Errorf("/readyz?verbose lists %s: %v, want %v\n%s", hook, got, want, body)
		}
	}

	fss, err := cs.FlowcontrolV1().FlowSchemas().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fss.Items) != 11 {
		t.Errorf("%d FlowSchemas stored, want bootstrap's 11", len(fss.Items))
	}
}
