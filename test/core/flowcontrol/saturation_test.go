package flowcontrol_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestSaturatedLevelRejects: a priority level of one share, that neither lends nor borrows and
// rejects what it cannot run, runs exactly as many requests at once as its share of the server's
// concurrency limit (kube-apiserver's arithmetic: the limit times its shares over the sum of all
// levels' shares, rounded up), and answers the next one 429 TooManyRequests while they run. The
// requests are held in flight by an admission webhook that answers only when the test lets it,
// so that "in flight" is a fact the test waits on, not a matter of timing.
func TestSaturatedLevelRejects(t *testing.T) {
	c := testchain.Start(t)
	ctx := context.Background()
	cs, _ := testchain.Clients(t, c)
	ns := testchain.Namespace(t, c)

	// The user whose requests the level runs, allowed to create and list ConfigMaps in ns.
	const user = "apf-tiny-user"
	// (Not edit: the aggregation controller that fills it does not run in a test chain.)
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "configmaps"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"create", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "configmaps"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmaps"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tiny := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "tiny"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](1), LendablePercent: ptr.To[int32](0), BorrowingLimitPercent: ptr.To[int32](0),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}}
	if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, tiny, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	schema := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "tiny"},
		Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: tiny.Name},
			MatchingPrecedence: 500, DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: user}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
					Namespaces: []string{"*"}, ClusterScope: true}}}}}}
	if _, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, schema, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	hook := newHoldingWebhook(t)
	none := admissionregistrationv1.SideEffectClassNone
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-test-hold"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "hold.apf.test",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To(hook.URL), CABundle: hook.caPEM},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](30),
		}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, "apf-test-hold", metav1.DeleteOptions{})
	})

	// Ready when the configuration controller has read the new schema and level (the user's
	// requests carry their UIDs), RBAC lets the user in, and the webhook is called.
	userCfg := testchain.UserConfig(t, c, user)
	stored, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Get(ctx, tiny.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testchain.WaitFor(t, func() bool {
		resp, _ := testchain.Request(t, userCfg, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps", nil, nil)
		return resp.StatusCode == http.StatusOK && resp.Header.Get("X-Kubernetes-PF-PriorityLevel-UID") == string(stored.UID)
	})
	testchain.WaitFor(t, func() bool {
		resp, _ := testchain.Request(t, c.Admin, http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps?dryRun=All",
			configMap("probe", "probe"), map[string]string{"Content-Type": "application/json"})
		return resp.StatusCode == http.StatusCreated && hook.probed()
	})

	// kube-apiserver's share of the server's limit (600 by default) for one share.
	levels, err := cs.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var shares int32
	for _, pl := range levels.Items {
		switch {
		case pl.Spec.Limited != nil:
			shares += *pl.Spec.Limited.NominalConcurrencyShares
		case pl.Spec.Exempt != nil && pl.Spec.Exempt.NominalConcurrencyShares != nil:
			shares += *pl.Spec.Exempt.NominalConcurrencyShares
		}
	}
	o := chain.NewOptions()
	limit := int(math.Ceil(float64(o.MaxRequestsInFlight+o.MaxMutatingRequestsInFlight) / float64(shares)))
	t.Logf("the level runs %d requests at once (1 share of %d)", limit, shares)

	// Fill the level: each create is let in and held by the webhook before the next is sent.
	type answer struct {
		code int
		body string
	}
	answers := make(chan answer, limit)
	for i := range limit {
		go func() {
			code, body := send(userCfg, http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps", configMap(fmt.Sprintf("held-%d", i), "hold"))
			answers <- answer{code, body}
		}()
		testchain.Eventually(t, fmt.Sprintf("request %d of %d held by the webhook", i+1, limit), func(context.Context) (bool, error) {
			select {
			case a := <-answers:
				return false, fmt.Errorf("answered %d before the level was full: %s", a.code, a.body)
			default:
				return hook.holding() == i+1, nil
			}
		})
	}
	levelsDump := dump(t, c.Admin, "dump_priority_levels", http.StatusOK)
	if row := dumpRow(levelsDump, tiny.Name); row["ExecutingRequests"] != fmt.Sprint(limit) {
		t.Errorf("dump_priority_levels: the level executes %q requests, want %d:\n%s", row["ExecutingRequests"], limit, levelsDump)
	}

	// One more is rejected at once, named as the level's.
	resp, body := testchain.Request(t, userCfg, http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps", configMap("one-too-many", "hold"),
		map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("X-Kubernetes-PF-PriorityLevel-UID") != string(stored.UID) {
		t.Errorf("a request beyond the level's %d: %d, priority level %s; want 429 from %s: %s", limit, resp.StatusCode,
			resp.Header.Get("X-Kubernetes-PF-PriorityLevel-UID"), stored.UID, body)
	}
	// kube-apiserver's APF filter answers in plain text, not a Status (client-go reads any 429
	// as TooManyRequests), and says when to try again.
	if want := "Too many requests, please try again later."; strings.TrimSpace(string(body)) != want {
		t.Errorf("the 429 says %q, want kube-apiserver's %q", body, want)
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Errorf("the 429 has no Retry-After header: %v", resp.Header)
	}
	if row := dumpRow(dump(t, c.Admin, "dump_priority_levels", http.StatusOK), tiny.Name); row["RejectedRequests"] != "1" {
		t.Errorf("dump_priority_levels: the level rejected %q requests, want 1", row["RejectedRequests"])
	}

	// Let the held ones go: each is created, and the level admits again.
	hook.release()
	for range limit {
		if a := <-answers; a.code != http.StatusCreated {
			t.Errorf("a held request: %d %s, want 201", a.code, a.body)
		}
	}
	if code, body := send(userCfg, http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps", configMap("after", "hold")); code != http.StatusCreated {
		t.Errorf("a request after the level emptied: %d %s, want 201", code, body)
	}
}

// configMap is a ConfigMap named name, labelled for the webhook: "probe" is answered at once,
// "hold" is held until released.
func configMap(name, webhook string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"apf-test":%q}}}`, name, webhook))
}

// send is testchain.Request for a goroutine other than the test's: it fails nothing, it tells.
func send(cfg *rest.Config, method, path string, body []byte) (int, string) {
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return 0, err.Error()
	}
	req, err := http.NewRequest(method, cfg.Host+path, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// holdingWebhook is a validating admission webhook that allows everything, holding each
// ConfigMap labelled apf-test=hold until release.
type holdingWebhook struct {
	*httptest.Server
	caPEM []byte

	mu       sync.Mutex
	held     int
	probes   int
	released chan struct{}
}

func newHoldingWebhook(t *testing.T) *holdingWebhook {
	h := &holdingWebhook{released: make(chan struct{})}
	h.Server = httptest.NewTLSServer(http.HandlerFunc(h.serve))
	// httptest's certificate is its own CA, for 127.0.0.1.
	h.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.Certificate().Raw})
	t.Cleanup(func() {
		h.release()
		h.Close()
	})
	return h
}

func (h *holdingWebhook) serve(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	var obj metav1.PartialObjectMetadata
	_ = json.Unmarshal(review.Request.Object.Raw, &obj)
	h.mu.Lock()
	switch obj.Labels["apf-test"] {
	case "hold":
		h.held++
	case "probe":
		h.probes++
	}
	h.mu.Unlock()
	if obj.Labels["apf-test"] == "hold" {
		select {
		case <-h.released:
		case <-r.Context().Done():
		}
	}
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	review.Request = nil
	_ = json.NewEncoder(w).Encode(review)
}

// holding is how many requests the webhook has held so far.
func (h *holdingWebhook) holding() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held
}

func (h *holdingWebhook) probed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.probes > 0
}

// release lets every held request, and every one to come, through.
func (h *holdingWebhook) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.released:
	default:
		close(h.released)
	}
}

// dumpRow is the row for priority level name of dump_priority_levels, by column name.
func dumpRow(dump, name string) map[string]string {
	lines := strings.Split(strings.TrimSpace(dump), "\n")
	header := strings.Split(lines[0], ",")
	for _, line := range lines[1:] {
		cells := strings.Split(line, ",")
		if strings.TrimSpace(cells[0]) != name || len(cells) != len(header) {
			continue
		}
		row := map[string]string{}
		for i, h := range header {
			row[strings.TrimSpace(h)] = strings.TrimSpace(cells[i])
		}
		return row
	}
	return nil
}
