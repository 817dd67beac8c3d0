package groups_test

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// csrRequest is a PEM PKCS#10 request for cn in orgs, base64 as a manifest carries it.
func csrRequest(t *testing.T, cn string, orgs ...string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

// matchNothing keeps the webhooks and policies of the CRUD test from seeing any request.
const matchNothing = `{matchLabels: {apichain-test: never}}`

// groupResources are one minimal valid object per resource of admissionregistration, scheduling,
// networking, storage, node, flowcontrol, certificates and the core volumes and quotas.
var groupResources = []struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	manifest   string
	// finalized: a delete leaves the object Terminating until its finalizer is removed
	// (StorageObjectInUseProtection).
	finalized bool
	// name, when set, is the object's name (an IPAddress is named by its address); otherwise
	// it is crud-<resource>.
	name string
	// statusWritten: a controller in the chain writes the new object's status once (API
	// Priority and Fairness's configuration controller, a FlowSchema's Dangling condition);
	// the test waits for that write, one more Modified event, before it changes the object.
	statusWritten bool
}{
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
		manifest: `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: NAME}, webhooks: [{name: v.example.com, clientConfig: {url: "https://127.0.0.1:1/v"}, rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}], sideEffects: None, admissionReviewVersions: [v1], failurePolicy: Ignore, objectSelector: ` + matchNothing + `}]}`},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
		manifest: `{apiVersion: admissionregistration.k8s.io/v1, kind: MutatingWebhookConfiguration, metadata: {name: NAME}, webhooks: [{name: m.example.com, clientConfig: {url: "https://127.0.0.1:1/m"}, rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}], sideEffects: None, admissionReviewVersions: [v1], failurePolicy: Ignore, objectSelector: ` + matchNothing + `}]}`},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
		manifest: `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicy, metadata: {name: NAME}, spec: {matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}], objectSelector: ` + matchNothing + `}, validations: [{expression: "false"}]}}`},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"},
		manifest: `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicyBinding, metadata: {name: NAME}, spec: {policyName: no-such-policy, validationActions: [Deny]}}`},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicies"},
		manifest: `{apiVersion: admissionregistration.k8s.io/v1, kind: MutatingAdmissionPolicy, metadata: {name: NAME}, spec: {reinvocationPolicy: Never, matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}], objectSelector: ` + matchNothing + `}, mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: "Object{}"}}]}}`},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings"},
		manifest: `{apiVersion: admissionregistration.k8s.io/v1, kind: MutatingAdmissionPolicyBinding, metadata: {name: NAME}, spec: {policyName: no-such-policy}}`},
	{gvr: schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"},
		manifest: `{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: NAME}, value: 1000}`},
	{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, namespaced: true,
		manifest: `{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: NAME}, spec: {rules: [{host: a.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: svc, port: {number: 80}}}}]}}]}}`},
	{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingressclasses"},
		manifest: `{apiVersion: networking.k8s.io/v1, kind: IngressClass, metadata: {name: NAME}, spec: {controller: example.com/x}}`},
	{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}, namespaced: true,
		manifest: `{apiVersion: networking.k8s.io/v1, kind: NetworkPolicy, metadata: {name: NAME}, spec: {podSelector: {}}}`},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"},
		manifest: `{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: NAME}, provisioner: example.com/x}`},
	{gvr: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"},
		manifest: `{apiVersion: certificates.k8s.io/v1, kind: CertificateSigningRequest, metadata: {name: NAME}, spec: {request: REQUEST, signerName: example.com/signer, usages: [client auth]}}`},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}, finalized: true,
		manifest: `{apiVersion: v1, kind: PersistentVolume, metadata: {name: NAME}, spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/x}}}`},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, namespaced: true, finalized: true,
		manifest: `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: NAME}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "limitranges"}, namespaced: true,
		manifest: `{apiVersion: v1, kind: LimitRange, metadata: {name: NAME}, spec: {limits: [{type: Container, default: {cpu: 100m}}]}}`},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}, namespaced: true,
		manifest: `{apiVersion: v1, kind: ResourceQuota, metadata: {name: NAME}, spec: {hard: {pods: '10'}}}`},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattributesclasses"}, finalized: true,
		manifest: `{apiVersion: storage.k8s.io/v1, kind: VolumeAttributesClass, metadata: {name: NAME}, driverName: csi.example.com, parameters: {iops: "3000"}}`},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"},
		manifest: `{apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: NAME}, spec: {}}`},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csinodes"},
		manifest: `{apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: NAME}, spec: {drivers: [{name: csi.example.com, nodeID: n1}]}}`},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csistoragecapacities"}, namespaced: true,
		manifest: `{apiVersion: storage.k8s.io/v1, kind: CSIStorageCapacity, metadata: {name: NAME}, storageClassName: sc, capacity: 10Gi}`},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattachments"},
		manifest: `{apiVersion: storage.k8s.io/v1, kind: VolumeAttachment, metadata: {name: NAME}, spec: {attacher: csi.example.com, nodeName: n1, source: {persistentVolumeName: pv}}}`},
	{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "servicecidrs"},
		manifest: `{apiVersion: networking.k8s.io/v1, kind: ServiceCIDR, metadata: {name: NAME}, spec: {cidrs: [10.96.0.0/24]}}`},
	{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ipaddresses"}, name: "192.168.200.9",
		manifest: `{apiVersion: networking.k8s.io/v1, kind: IPAddress, metadata: {name: NAME}, spec: {parentRef: {group: "", resource: services, namespace: NS, name: web}}}`},
	{gvr: schema.GroupVersionResource{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"},
		manifest: `{apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata: {name: NAME}, handler: runsc}`},
	{gvr: schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas"},
		manifest:      `{apiVersion: flowcontrol.apiserver.k8s.io/v1, kind: FlowSchema, metadata: {name: NAME}, spec: {priorityLevelConfiguration: {name: crud-prioritylevelconfigurations}, rules: [{subjects: [{kind: User, user: {name: crud}}], nonResourceRules: [{verbs: [get], nonResourceURLs: [/crud]}]}]}}`,
		statusWritten: true},
	{gvr: schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "prioritylevelconfigurations"},
		manifest: `{apiVersion: flowcontrol.apiserver.k8s.io/v1, kind: PriorityLevelConfiguration, metadata: {name: NAME}, spec: {type: Limited, limited: {limitResponse: {type: Reject}}}}`},
}

// TestGroupResourcesCRUDAndWatch creates, reads, lists, updates, patches, watches and deletes
// one object of every resource this stage adds, as a client would.
func TestGroupResourcesCRUDAndWatch(t *testing.T) {
	_, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	request := csrRequest(t, "crud")
	for _, r := range groupResources {
		t.Run(r.gvr.Resource, func(t *testing.T) {
			name := cmp.Or(r.name, "crud-"+r.gvr.Resource)
			var ri dynamic.ResourceInterface = dyn.Resource(r.gvr)
			if r.namespaced {
				ri = dyn.Resource(r.gvr).Namespace(ns)
			}
			w, err := ri.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			defer w.Stop()
			obj := coretest.Object(t, r.manifest, name, ns)
			if strings.Contains(r.manifest, "REQUEST") {
				// Set after object's placeholders: base64 may well contain "NS" or "NAME".
				if err := unstructured.SetNestedField(obj.Object, request, "spec", "request"); err != nil {
					t.Fatal(err)
				}
			}
			created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if created.GetUID() == "" || created.GetResourceVersion() == "" {
				t.Errorf("create did not fill system metadata: %v", created.Object["metadata"])
			}
			if _, err := ri.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
				t.Errorf("second create: %v, want AlreadyExists", err)
			}
			events := []watch.EventType{watch.Added, watch.Modified, watch.Modified}
			if r.statusWritten {
				testchain.Eventually(t, "the controller's status", func(ctx context.Context) (bool, error) {
					o, err := ri.Get(ctx, name, metav1.GetOptions{})
					if err != nil {
						return false, err
					}
					conditions, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
					return len(conditions) > 0, nil
				})
				events = slices.Insert(events, 1, watch.Modified)
			}
			got, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			got.SetLabels(map[string]string{"updated": "yes"})
			if _, err := ri.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("update: %v", err)
			}
			if _, err := ri.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Errorf("update with stale resourceVersion: %v, want Conflict", err)
			}
			patched, err := ri.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"annotations":{"patched":"yes"}}}`), metav1.PatchOptions{})
			if err != nil {
				t.Fatalf("patch: %v", err)
			}
			if patched.GetLabels()["updated"] != "yes" || patched.GetAnnotations()["patched"] != "yes" {
				t.Errorf("patch lost the update: %v", patched.Object["metadata"])
			}
			if list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: "updated=yes"}); err != nil || len(list.Items) != 1 {
				t.Errorf("list by label: %v", err)
			}
			if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			next := func(i int) watch.Event {
				select {
				case ev := <-w.ResultChan():
					return ev
				case <-time.After(30 * time.Second):
					t.Fatalf("watch event %d never came", i)
				}
				return watch.Event{}
			}
			for i, typ := range events {
				if ev := next(i); ev.Type != typ {
					t.Fatalf("watch event %d = %s, want %s", i, ev.Type, typ)
				}
			}
			if r.finalized {
				// Without kube-controller-manager's protection controllers, the finalizer stays.
				if ev := next(3); ev.Type != watch.Modified {
					t.Fatalf("watch event after delete = %s, want Modified (Terminating)", ev.Type)
				}
				terminating, err := ri.Get(ctx, name, metav1.GetOptions{})
				if err != nil || terminating.GetDeletionTimestamp() == nil || len(terminating.GetFinalizers()) != 1 {
					t.Fatalf("after delete: %v, %v", err, terminating.Object["metadata"])
				}
				if _, err := ri.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
					t.Fatalf("removing the finalizer: %v", err)
				}
			}
			if ev := next(4); ev.Type != watch.Deleted {
				t.Fatalf("watch event after delete = %s, want Deleted", ev.Type)
			}
			if _, err := ri.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: %v, want NotFound", err)
			}
		})
	}
}

// TestGroupTablesHaveKubectlColumns checks the columns `kubectl get` shows for the resources of
// this stage, as kube-apiserver's printers define them (the row-by-row comparison is in
// servers/core/printers), and the rows of the system priority classes.
func TestGroupTablesHaveKubectlColumns(t *testing.T) {
	for path, want := range map[string]string{
		"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations":   "Name,Webhooks,Age",
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations":     "Name,Webhooks,Age",
		"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies":       "Name,Validations,ParamKind,Age",
		"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings": "Name,PolicyName,ParamRef,Age",
		"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies":         "Name,Mutations,ParamKind,Age",
		"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings":   "Name,PolicyName,ParamRef,Age",
		"/apis/scheduling.k8s.io/v1/priorityclasses":                              "Name,Value,Global-Default,Age,PreemptionPolicy",
		"/apis/networking.k8s.io/v1/ingresses":                                    "Name,Class,Hosts,Address,Ports,Age",
		"/apis/networking.k8s.io/v1/ingressclasses":                               "Name,Controller,Parameters,Age",
		"/apis/networking.k8s.io/v1/networkpolicies":                              "Name,Pod-Selector,Age",
		"/apis/storage.k8s.io/v1/storageclasses":                                  "Name,Provisioner,ReclaimPolicy,VolumeBindingMode,AllowVolumeExpansion,Age",
		"/apis/certificates.k8s.io/v1/certificatesigningrequests":                 "Name,Age,SignerName,Requestor,RequestedDuration,Condition",
		"/api/v1/persistentvolumes":                                               "Name,Capacity,Access Modes,Reclaim Policy,Status,Claim,StorageClass,VolumeAttributesClass,Reason,Age,VolumeMode",
		"/api/v1/persistentvolumeclaims":                                          "Name,Status,Volume,Capacity,Access Modes,StorageClass,VolumeAttributesClass,Age,VolumeMode",
		"/api/v1/limitranges":                                                     "Name,Created At",
		"/api/v1/resourcequotas":                                                  "Name,Request,Limit,Age",
	} {
		if got := strings.Join(coretest.ColumnNames(coretest.Table(t, shared, path)), ","); got != want {
			t.Errorf("%s columns:\n got  %s\n want %s", path, got, want)
		}
	}
	table := coretest.Table(t, shared, "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical")
	if cells := table.Rows[0].Cells; len(cells) != 5 || cells[0] != "system-node-critical" || cells[1] != float64(2000001000) || cells[2] != false || cells[4] != "PreemptLowerPriority" {
		t.Errorf("system-node-critical row: %v", cells)
	}
}
