package groups_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/reference"
	"github.com/apichain/apichain/test/testchain"
)

// fromReference returns what kubectl sent kube-apiserver for test/reference/defaulted/<file>
// (its last-applied-configuration) and what kube-apiserver answered, both renamed to name (in
// namespace ns, for a namespaced kind).
func fromReference(t *testing.T, file, name, ns string) (sent, answered *unstructured.Unstructured) {
	t.Helper()
	// Read as a client reads JSON: integers are int64.
	answered, sent = &unstructured.Unstructured{}, &unstructured.Unstructured{}
	if err := answered.UnmarshalJSON(reference.Read(t, "defaulted/"+file)); err != nil {
		t.Fatal(err)
	}
	if err := sent.UnmarshalJSON([]byte(answered.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"])); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*unstructured.Unstructured{sent, answered} {
		o.SetName(name)
		if o.GetNamespace() != "" {
			o.SetNamespace(ns)
		}
		o.SetAnnotations(nil)
	}
	return sent, answered
}

// withoutMetadata is o but its metadata, with the fields at the given paths (times of the
// capture) removed.
func withoutMetadata(o *unstructured.Unstructured, paths ...[]string) map[string]any {
	c := o.DeepCopy()
	delete(c.Object, "metadata")
	for _, p := range paths {
		unstructured.RemoveNestedField(c.Object, p...)
	}
	return c.Object
}

// newKinds are the resources of resource.k8s.io, the newer certificates.k8s.io kinds and
// storagemigration.k8s.io, each from its reference object, with what is particular to it.
var newKinds = []struct {
	file string
	gvr  schema.GroupVersionResource
	// stamped are fields kube-apiserver sets to the time of the request.
	stamped [][]string
	// selector is a field selector (with NAME for the object's name) that finds the object.
	selector string
	// conditional kinds refuse an update that does not name the resourceVersion it replaces.
	conditional bool
	// answersDeleteWithObject: a delete answers with the object, not a Status.
	answersDeleteWithObject bool
	// status, for a kind with /status: what a controller may write there.
	status string
	// columns are `kubectl get`'s; cells the row of the object once its status is set (Age
	// and times left out: "-").
	columns, cells string
}{
	{file: "deviceclass.json", gvr: schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"},
		answersDeleteWithObject: true, columns: "Name,Age", cells: "NAME,-"},
	{file: "devicetaintrule.json", gvr: schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "devicetaintrules"},
		stamped: [][]string{{"spec", "taint", "timeAdded"}}, conditional: true,
		status:  `{conditions: [{type: EvictionInProgress, status: "False", reason: NotEvicting, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}]}`,
		columns: "Name,Key,Value,Effect,TimeAdded,Age", cells: "NAME,example.com/broken,,NoSchedule,-,-"},
	{file: "resourceclaim.json", gvr: schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"},
		answersDeleteWithObject: true,
		status:                  `{allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]}}, reservedFor: [{resource: pods, name: p, uid: u1}]}`,
		columns:                 "Name,State,Age", cells: "NAME,allocated,reserved,-"},
	{file: "resourceclaimtemplate.json", gvr: schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaimtemplates"},
		answersDeleteWithObject: true, columns: "Name,Age", cells: "NAME,-"},
	{file: "resourceslice.json", gvr: schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"},
		selector: "spec.driver=gpu.example.com,spec.nodeName=n1,spec.pool.name=n1,metadata.name=NAME", answersDeleteWithObject: true,
		columns: "Name,Node,Driver,Pool,Age", cells: "NAME,n1,gpu.example.com,n1,-"},
	{file: "clustertrustbundle.json", gvr: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "clustertrustbundles"},
		selector: "spec.signerName=,metadata.name=NAME", conditional: true, columns: "Name,SignerName", cells: "NAME,<none>"},
	{file: "podcertificaterequest.json", gvr: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "podcertificaterequests"},
		selector: "spec.signerName=example.com/signer,spec.podName=p,spec.nodeName=n1", conditional: true,
		status:  `{conditions: [{type: Denied, status: "True", reason: UnsupportedKeyType, message: "no ed25519 here", lastTransitionTime: "2026-01-01T00:00:00Z"}]}`,
		columns: "Name,PodName,ServiceAccountName,NodeName,SignerName,State,UnverifiedUserAnnotations", cells: "NAME,p,default,n1,example.com/signer,Denied,<none>"},
	{file: "storageversionmigration.json", gvr: schema.GroupVersionResource{Group: "storagemigration.k8s.io", Version: "v1", Resource: "storageversionmigrations"},
		conditional: true,
		status:      `{resourceVersion: "1", conditions: [{type: Running, status: "True", reason: Migrating, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}]}`,
		columns:     "Name,Resource,Status", cells: "NAME,configmaps,Running"},
}

// TestNewResourcesLikeKubeAPIServer creates each resource from the object kube-apiserver was
// sent, compares the answer (its defaults) with kube-apiserver's, then reads, lists, updates,
// sets the status of, prints and deletes it, as a client would.
func TestNewResourcesLikeKubeAPIServer(t *testing.T) {
	_, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	for _, k := range newKinds {
		t.Run(k.gvr.Resource, func(t *testing.T) {
			name := "ref-" + strings.TrimSuffix(k.file, ".json")
			sent, answered := fromReference(t, k.file, name, ns)
			var ri dynamic.ResourceInterface = dyn.Resource(k.gvr)
			path := "/apis/" + k.gvr.GroupVersion().String() + "/"
			if sent.GetNamespace() != "" {
				ri = dyn.Resource(k.gvr).Namespace(ns)
				path += "namespaces/" + ns + "/"
			}
			path += k.gvr.Resource

			before := time.Now().Add(-time.Second)
			created, err := ri.Create(ctx, sent, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if diff := cmp.Diff(withoutMetadata(answered, k.stamped...), withoutMetadata(created, k.stamped...)); diff != "" {
				t.Errorf("created object differs from kube-apiserver's (-kube-apiserver +chain):\n%s", diff)
			}
			for _, p := range k.stamped {
				s, _, _ := unstructured.NestedString(created.Object, p...)
				if at, err := time.Parse(time.RFC3339, s); err != nil || at.Before(before.Truncate(time.Second)) {
					t.Errorf("%s = %q, want the time of the create", strings.Join(p, "."), s)
				}
			}

			selector := "metadata.name=" + name
			if k.selector != "" {
				selector = strings.ReplaceAll(k.selector, "NAME", name)
			}
			list, err := ri.List(ctx, metav1.ListOptions{FieldSelector: selector})
			if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != name {
				t.Errorf("list with field selector %s: %v, %d items", selector, err, len(list.Items))
			}

			// An update without the resourceVersion it replaces.
			blind := created.DeepCopy()
			blind.SetResourceVersion("")
			blind.SetLabels(map[string]string{"blind": "yes"})
			_, err = ri.Update(ctx, blind, metav1.UpdateOptions{})
			if k.conditional {
				var status apierrors.APIStatus
				if !apierrors.IsInvalid(err) || !errorsAs(err, &status) || status.Status().Details.Causes[0].Field != "metadata.resourceVersion" {
					t.Errorf("an update without resourceVersion: %v, want Invalid metadata.resourceVersion", err)
				}
			} else if err != nil {
				t.Errorf("an update without resourceVersion: %v", err)
			}

			current, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			if k.status != "" {
				// Through the main resource, the status does not change; through /status,
				// only the status does.
				withStatus := coretest.Object(t, "{status: "+k.status+"}", name, ns)
				tried := current.DeepCopy()
				tried.Object["status"] = withStatus.Object["status"]
				updated, err := ri.Update(ctx, tried, metav1.UpdateOptions{})
				if err != nil {
					t.Fatalf("update with a status: %v", err)
				}
				if diff := cmp.Diff(current.Object["status"], updated.Object["status"]); diff != "" {
					t.Errorf("the main resource changed the status (-before +after):\n%s", diff)
				}
				tried = updated.DeepCopy()
				tried.Object["status"] = withStatus.Object["status"]
				tried.SetLabels(map[string]string{"through": "status"})
				answer, err := ri.UpdateStatus(ctx, tried, metav1.UpdateOptions{})
				if err != nil {
					t.Fatalf("/status: %v", err)
				}
				if diff := cmp.Diff(withStatus.Object["status"], answer.Object["status"]); diff != "" {
					t.Errorf("/status did not set the status (-sent +stored):\n%s", diff)
				}
				if answer.GetLabels()["through"] != "" || !cmp.Equal(updated.Object["spec"], answer.Object["spec"]) {
					t.Errorf("/status changed more than the status: %v", answer.Object)
				}
			}

			table := coretest.Table(t, shared, path+"/"+name)
			if got := strings.Join(coretest.ColumnNames(table), ","); got != k.columns {
				t.Errorf("columns %s, want %s", got, k.columns)
			}
			var cells []string
			for i, c := range table.Rows[0].Cells {
				switch col := table.ColumnDefinitions[i].Name; {
				case col == "Age" || col == "TimeAdded":
					cells = append(cells, "-")
				default:
					cells = append(cells, fmt.Sprint(c))
				}
			}
			if got, want := strings.Join(cells, ","), strings.ReplaceAll(k.cells, "NAME", name); got != want {
				t.Errorf("row %s, want %s", got, want)
			}

			resp, body := testchain.Do(t, shared.Admin, http.MethodDelete, path+"/"+name, nil, "")
			var kind struct{ Kind string }
			_ = json.Unmarshal(body, &kind)
			if want := map[bool]string{true: created.GetKind(), false: "Status"}[k.answersDeleteWithObject]; resp.StatusCode != http.StatusOK || kind.Kind != want {
				t.Errorf("delete: %d %s, want a %s", resp.StatusCode, body, want)
			}
			if _, err := ri.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: %v, want NotFound", err)
			}
		})
	}
}

func errorsAs(err error, status *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*status = s
	}
	return ok && s.Status().Details != nil && len(s.Status().Details.Causes) > 0
}
