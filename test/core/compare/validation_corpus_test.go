package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/restmapper"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/reference"
	"github.com/apichain/apichain/test/testchain"
)

// corpusDeviations are the cases where the chain knowingly answers otherwise than
// kube-apiserver, each with why. Keep it under 2 % of the corpus.
var corpusDeviations = map[string]string{}

// TestValidationCorpus sends every case of kube-apiserver's validation corpus to the chain and
// compares the status code, the reason and the causes (field and type, in any order).
func TestValidationCorpus(t *testing.T) {
	corpus, err := reference.ReadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if max := len(corpus.Cases) * 2 / 100; len(corpusDeviations) > max {
		t.Errorf("%d known deviations; at most %d (2 %%) allowed", len(corpusDeviations), max)
	}

	cs, dyn := testchain.Clients(t, shared)
	ctx := context.Background()
	// The namespace the corpus was captured in, with its default service account, as a
	// namespace controller would have made it.
	ns := corpus.Namespace
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(cs.Discovery())
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)

	seen := map[string]bool{}
	for i, tc := range corpus.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			if seen[tc.Name] {
				t.Fatalf("case name %q is not unique", tc.Name)
			}
			seen[tc.Name] = true
			obj := &unstructured.Unstructured{Object: tc.Object}
			gvk := obj.GroupVersionKind()
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Fatalf("%s is not served: %v", gvk, err)
			}
			collection := coretest.CollectionPath(m.Resource, obj.GetNamespace())

			var resp *http.Response
			var body []byte
			switch tc.Op {
			case "create":
				resp, body = testchain.Do(t, shared.Admin, http.MethodPost, collection+"?dryRun=All", mustJSON(t, tc.Object), "application/json")
			case "update":
				// Created for real under a name of its own (an IPAddress, named by its address,
				// keeps its name), then replaced in a dry run that names the version it replaces,
				// as the capture did: some resources take no update that does not.
				name := fmt.Sprintf("%s-u%d", obj.GetName(), i)
				if gvk.Kind == "IPAddress" {
					name = obj.GetName()
				}
				obj.SetName(name)
				update := &unstructured.Unstructured{Object: tc.Update}
				update.SetName(name)
				ri := dyn.Resource(m.Resource).Namespace(obj.GetNamespace())
				created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("creating the object to update: %v", err)
				}
				update.SetResourceVersion(created.GetResourceVersion())
				t.Cleanup(func() { _ = ri.Delete(ctx, name, metav1.DeleteOptions{}) })
				resp, body = testchain.Do(t, shared.Admin, http.MethodPut, collection+"/"+name+"?dryRun=All", mustJSON(t, update.Object), "application/json")
			default:
				t.Fatalf("unknown op %q", tc.Op)
			}

			got := answerOf(resp.StatusCode, body)
			diff := compareAnswers(got, tc.Expect)
			reason, known := corpusDeviations[tc.Name]
			switch {
			case diff != "" && !known:
				t.Errorf("answer differs from kube-apiserver's: %s\n got:  %d %s\n want: %d %s", diff, resp.StatusCode, got.Message, tc.Expect.Code, tc.Expect.Message)
			case diff == "" && known:
				t.Errorf("listed as a known deviation (%s) but now answers as kube-apiserver: remove it from corpusDeviations", reason)
			case known:
				t.Logf("known deviation (%s): %s", reason, diff)
			}
		})
	}
}

func mustJSON(t *testing.T, v interface{}) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// answerOf reads the reason, message and causes of a Status; a successful write has none.
func answerOf(code int, body []byte) reference.CorpusAnswer {
	a := reference.CorpusAnswer{Code: code}
	if code < 300 {
		return a
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
		a.Message = "not a Status: " + string(body)
		return a
	}
	a.Reason, a.Message = string(st.Reason), st.Message
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			a.Causes = append(a.Causes, reference.CorpusCause{Field: c.Field, Reason: string(c.Type)})
		}
	}
	return a
}

// compareAnswers says how got differs from want, or "" when they agree. Causes are compared as
// sets of field and type: the corpus lists each pair once.
func compareAnswers(got, want reference.CorpusAnswer) string {
	var diffs []string
	if got.Code != want.Code {
		diffs = append(diffs, fmt.Sprintf("code %d, want %d", got.Code, want.Code))
	}
	if got.Reason != want.Reason {
		diffs = append(diffs, fmt.Sprintf("reason %q, want %q", got.Reason, want.Reason))
	}
	g, w := causeStrings(got.Causes), causeStrings(want.Causes)
	if !slices.Equal(g, w) {
		diffs = append(diffs, fmt.Sprintf("causes %v, want %v", g, w))
	}
	return strings.Join(diffs, "; ")
}

func causeStrings(causes []reference.CorpusCause) []string {
	out := []string{}
	for _, c := range causes {
		out = append(out, c.Field+" "+c.Reason)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
