package tracing_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/test/testchain"
)

// TestWriteThroughAdmission: a create passes the mutating and the validating admission plugins,
// each phase a span and each plugin an event in it, the validating webhook among them (its call,
// a child of the phase, carries the trace to the webhook), then storage, which says the key and
// the revision written; a write never comes from the watch cache.
func TestWriteThroughAdmission(t *testing.T) {
	c := shared
	ns := testchain.Namespace(t, c)
	cs, _ := testchain.Clients(t, c)

	// A validating webhook that allows everything and notes the trace context it was sent.
	var mu sync.Mutex
	traceparents := map[string]string{} // object name → traceparent
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		mu.Lock()
		traceparents[review.Request.Name] = r.Header.Get("traceparent")
		mu.Unlock()
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	defer hook.Close()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	webhook := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "test-trace-" + ns},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "configmaps.tracing.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{CABundle: caPEM, URL: ptr.To(hook.URL + "/validate")},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(context.Background(), webhook, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), webhook.Name, metav1.DeleteOptions{})
	})

	// Create ConfigMaps until the webhook sees one (the chain learns of the webhook through an
	// informer); the trace of that one is the one to read.
	var name string
	var created *corev1.ConfigMap
	testchain.WaitFor(t, func() bool {
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "traced-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		_, seen := traceparents[cm.Name]
		name, created = cm.Name, cm
		return seen
	})
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	tr := waitForTrace(t, c, "the create", func(tr *tracing.Trace) bool {
		return tr.Request.Verb == "create" && tr.Request.Path == path && find(tr, tracing.StorageSpanName("create")) != nil &&
			find(tr, tracing.StorageSpanName("create")).Attributes[tracing.AttrStorageRevision] == created.ResourceVersion
	})
	if tr.Request.Code != http.StatusCreated || tr.Request.Server != "core" {
		t.Errorf("request: %+v", tr.Request)
	}
	mutating, validating := tracing.AdmissionSpanName("mutating"), tracing.AdmissionSpanName("validating")
	hops := names(tr, func(string) bool { return true })
	want := []string{"aggregator", "core", mutating, validating, tracing.StorageSpanName("create")}
	if !ordered(hops, want) {
		t.Errorf("hops %v, want %v in order\n%s", hops, want, tree(tr))
	}
	m := mustFind(t, tr, mutating)
	if got, want := plugins(m), []string{"NamespaceLifecycle", "MutatingAdmissionWebhook"}; !ordered(got, want) {
		t.Errorf("%s: plugins %v, want %v in order", mutating, got, want)
	}
	v := mustFind(t, tr, validating)
	if v.Attributes[tracing.AttrAdmissionOperation] != "CREATE" || !slices.Contains(plugins(v), "ValidatingAdmissionWebhook") ||
		len(v.Children) == 0 || v.Children[0].Name != "Call validating webhook" {
		t.Errorf("%s: %v, plugins %v, children %d\n%s", validating, v.Attributes, plugins(v), len(v.Children), tree(tr))
	}
	for _, e := range v.Events {
		if e.Name == "ValidatingAdmissionWebhook" && (e.Attributes[tracing.AttrDurationMs] == "" || e.Time.After(v.Children[0].Start)) {
			t.Errorf("the webhook plugin's event: %+v; its call started at %v", e, v.Children[0].Start)
		}
	}
	store := mustFind(t, tr, tracing.StorageSpanName("create"))
	if key := store.Attributes[tracing.AttrStorageKey]; key != "/registry/configmaps/"+ns+"/"+name || store.Attributes[tracing.AttrWatchCache] != "" {
		t.Errorf("storage: %v", store.Attributes)
	}
	// The webhook was told the trace: the one of this request.
	mu.Lock()
	tp := traceparents[name]
	mu.Unlock()
	if len(tp) < 36 || tp[3:35] != tr.TraceID {
		t.Errorf("the webhook got traceparent %q, want trace %s", tp, tr.TraceID)
	}
}

// plugins are the admission plugins that ran in a phase's span: its events, in order.
func plugins(phase *tracing.Span) []string {
	var out []string
	for _, e := range phase.Events {
		if name, ok := e.Attributes[tracing.AttrAdmissionPlugin]; ok && name == e.Name {
			out = append(out, name)
		}
	}
	return out
}
