package groups_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// The storage, networking, node and flowcontrol resources that kube-apiserver v1.37 serves
// beside the rest: CSIDrivers, CSINodes, CSIStorageCapacities, VolumeAttachments,
// VolumeAttributesClasses, IPAddresses, ServiceCIDRs, RuntimeClasses, FlowSchemas and
// PriorityLevelConfigurations. Create, read, update, patch, watch and delete of each are in
// TestGroupResourcesCRUDAndWatch, their defaults in TestDefaultsMatchKubeAPIServer, their
// validation in TestValidationCorpus.

// TestNewResourcesHaveOpenAPI: kubectl explain reads their schemas, and server-side apply
// tracks their fields.
func TestNewResourcesHaveOpenAPI(t *testing.T) {
	for _, field := range []string{"flowschemas.spec.matchingPrecedence", "csidrivers.spec.attachRequired", "servicecidrs.spec.cidrs",
		"ipaddresses.spec.parentRef", "runtimeclasses.handler", "volumeattributesclasses.driverName"} {
		if out, err := testchain.Kubectl(t, shared, "explain", field); err != nil || !strings.Contains(out, "FIELD:") {
			t.Errorf("kubectl explain %s: %v\n%s", field, err, out)
		}
	}
	const rc = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: applied}\nhandler: runsc\noverhead: {podFixed: {cpu: 100m}}\n"
	if out, err := testchain.KubectlInput(t, shared, rc, "apply", "--server-side", "--field-manager", "tester", "-f", "-"); err != nil || !strings.Contains(out, "serverside-applied") {
		t.Fatalf("kubectl apply --server-side: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = testchain.Kubectl(t, shared, "delete", "runtimeclass", "applied") })
	out, err := testchain.Kubectl(t, shared, "get", "runtimeclass", "applied", "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[0].manager} {.metadata.managedFields[0].fieldsV1}")
	if err != nil || !strings.HasPrefix(out, "tester ") || !strings.Contains(out, `"f:podFixed":{"f:cpu":{}}`) {
		t.Errorf("managed fields of an applied RuntimeClass: %v %s", err, out)
	}
}

// TestNewResourcesTables: the columns `kubectl get` shows, as kube-apiserver's printers define
// them, and the rows of objects made here.
func TestNewResourcesTables(t *testing.T) {
	ctx := context.Background()
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	if _, err := cs.StorageV1().CSIDrivers().Create(ctx, &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "tables.example.com"},
		Spec: storagev1.CSIDriverSpec{TokenRequests: []storagev1.TokenRequest{{Audience: "vault"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.StorageV1().CSIDrivers().Delete(ctx, "tables.example.com", metav1.DeleteOptions{}) })
	if _, err := cs.NetworkingV1().IPAddresses().Create(ctx, &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "192.168.201.1"},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: ns, Name: "web"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.NetworkingV1().IPAddresses().Delete(ctx, "192.168.201.1", metav1.DeleteOptions{}) })

	for _, tc := range []struct {
		path, columns string
		cells         []any // the first row's, but Age
	}{
		{"/apis/storage.k8s.io/v1/csidrivers/tables.example.com", "Name,AttachRequired,PodInfoOnMount,StorageCapacity,TokenRequests,RequiresRepublish,Modes,Age",
			[]any{"tables.example.com", true, false, false, "vault", false, "Persistent"}},
		{"/apis/storage.k8s.io/v1/csinodes", "Name,Drivers,Age", nil},
		{"/apis/storage.k8s.io/v1/csistoragecapacities", "Name,StorageClassName,Capacity", nil},
		{"/apis/storage.k8s.io/v1/volumeattachments", "Name,Attacher,PV,Node,Attached,Age", nil},
		{"/apis/storage.k8s.io/v1/volumeattributesclasses", "Name,DriverName,Age", nil},
		// Two columns, three cells, as kube-apiserver sends: kubectl shows the first two.
		{"/apis/networking.k8s.io/v1/ipaddresses/192.168.201.1", "Name,ParentRef", []any{"192.168.201.1", "services/" + ns + "/web", nil}},
		{"/apis/networking.k8s.io/v1/servicecidrs/kubernetes", "Name,CIDRs,Age", []any{"kubernetes", "10.0.0.0/24"}},
		{"/apis/node.k8s.io/v1/runtimeclasses", "Name,Handler,Age", nil},
		{"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", "Name,PriorityLevel,MatchingPrecedence,DistinguisherMethod,Age,MissingPL", nil},
		{"/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", "Name,Type,NominalConcurrencyShares,Queues,HandSize,QueueLengthLimit,Age", nil},
	} {
		table := coretest.Table(t, shared, tc.path)
		if got := strings.Join(coretest.ColumnNames(table), ","); got != tc.columns {
			t.Errorf("%s columns:\n got  %s\n want %s", tc.path, got, tc.columns)
		}
		if tc.cells == nil {
			continue
		}
		cells := table.Rows[0].Cells
		if len(cells) < len(tc.cells) {
			t.Fatalf("%s: cells %v", tc.path, cells)
		}
		for i, want := range tc.cells {
			if want != nil && cells[i] != want {
				t.Errorf("%s cell %d = %#v, want %#v", tc.path, i, cells[i], want)
			}
		}
	}
	out, err := testchain.Kubectl(t, shared, "get", "ipaddresses", "192.168.201.1")
	if err != nil || !regexp.MustCompile(`(?m)^NAME\s+PARENTREF\n192\.168\.201\.1\s+services/`+ns+`/web\s*$`).MatchString(out) {
		t.Errorf("kubectl get ipaddresses: %v\n%s", err, out)
	}
}

// TestDefaultServiceCIDR: the range of --service-cluster-ip-range is the ServiceCIDR
// kubernetes, Ready, its status written by kube-apiserver's field manager.
func TestDefaultServiceCIDR(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	// The chain is ready: the hook that makes it has run.
	c, err := cs.NetworkingV1().ServiceCIDRs().Get(context.Background(), "kubernetes", metav1.GetOptions{})
	if err != nil || len(c.Status.Conditions) != 1 {
		t.Fatalf("default ServiceCIDR: %v %+v", err, c)
	}
	cond := c.Status.Conditions[0]
	if !slices.Equal(c.Spec.CIDRs, []string{"10.0.0.0/24"}) || cond.Type != "Ready" || cond.Status != metav1.ConditionTrue ||
		cond.Message != "Kubernetes default Service CIDR is ready" {
		t.Errorf("default ServiceCIDR: %+v", c)
	}
	if !slices.ContainsFunc(c.ManagedFields, func(m metav1.ManagedFieldsEntry) bool {
		return m.Manager == "kubernetes-service-cidr-controller" && m.Subresource == "status"
	}) {
		t.Errorf("managed fields: %+v", c.ManagedFields)
	}
	out, err := testchain.Kubectl(t, shared, "get", "servicecidrs")
	if err != nil || !regexp.MustCompile(`(?m)^NAME\s+CIDRS\s+AGE\nkubernetes\s+10\.0\.0\.0/24\s+\d+`).MatchString(out) {
		t.Errorf("kubectl get servicecidrs: %v\n%s", err, out)
	}
}

// TestStatusSubresources: where kube-apiserver has /status, the main resource leaves status
// alone and /status everything else; a ServiceCIDR's main resource writes status too, as
// kube-apiserver's strategy lets it.
func TestStatusSubresources(t *testing.T) {
	ctx := context.Background()
	cs, _ := testchain.Clients(t, shared)

	va, err := cs.StorageV1().VolumeAttachments().Create(ctx, &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "status-va"},
		Spec:   storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "n1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr.To("pv")}},
		Status: storagev1.VolumeAttachmentStatus{Attached: true}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.StorageV1().VolumeAttachments().Delete(ctx, va.Name, metav1.DeleteOptions{}) })
	if va.Status.Attached {
		t.Error("a create set the attachment's status")
	}
	va.Status.Attached = true
	va.Spec.NodeName = "n2"
	va.Labels = map[string]string{"attached": "yes"}
	if va, err = cs.StorageV1().VolumeAttachments().UpdateStatus(ctx, va, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !va.Status.Attached || va.Spec.NodeName != "n1" || va.Labels != nil {
		t.Errorf("after /status: attached %v, node %s, labels %v", va.Status.Attached, va.Spec.NodeName, va.Labels)
	}
	if out, err := testchain.Kubectl(t, shared, "get", "volumeattachments", va.Name); err != nil || !regexp.MustCompile(`(?m)^status-va\s+csi\.example\.com\s+pv\s+n1\s+true\s+`).MatchString(out) {
		t.Errorf("kubectl get volumeattachments: %v\n%s", err, out)
	}

	fs, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "status-fs"},
		Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "nowhere"},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "u"}}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.FlowcontrolV1().FlowSchemas().Delete(ctx, fs.Name, metav1.DeleteOptions{}) })
	if fs.Generation != 1 || fs.Spec.MatchingPrecedence != 1000 {
		t.Errorf("new flow schema: generation %d, precedence %d", fs.Generation, fs.Spec.MatchingPrecedence)
	}
	// The head's APF configuration controller writes the Dangling condition through /status,
	// as kube-apiserver's does: the schema names a priority level that does not exist.
	testchain.Eventually(t, "status-fs's Dangling condition", func(ctx context.Context) (bool, error) {
		fs, err = cs.FlowcontrolV1().FlowSchemas().Get(ctx, fs.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return len(fs.Status.Conditions) == 1 && fs.Status.Conditions[0].Type == flowcontrolv1.FlowSchemaConditionDangling &&
			fs.Status.Conditions[0].Status == flowcontrolv1.ConditionTrue && fs.Status.Conditions[0].Reason == "NotFound", nil
	})
	dangling := fs.Status.Conditions[0]
	fs.Spec.MatchingPrecedence = 2000
	fs.Status.Conditions = nil
	if fs, err = cs.FlowcontrolV1().FlowSchemas().Update(ctx, fs, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if fs.Generation != 2 || len(fs.Status.Conditions) != 1 {
		t.Errorf("after a spec update: generation %d, conditions %v", fs.Generation, fs.Status.Conditions)
	}
	if table := coretest.Table(t, shared, "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/status-fs"); table.Rows[0].Cells[5] != "True" {
		t.Errorf("MissingPL of a dangling schema: %v", table.Rows[0].Cells)
	}
	bad := fs.DeepCopy()
	bad.Status.Conditions = append(bad.Status.Conditions, dangling)
	if _, err := cs.FlowcontrolV1().FlowSchemas().UpdateStatus(ctx, bad, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), `status.conditions[1].type: Duplicate value: "Dangling"`) {
		t.Errorf("a condition twice: %v", err)
	}

	pl, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "status-pl"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, pl.Name, metav1.DeleteOptions{})
	})
	pl.Status.Conditions = []flowcontrolv1.PriorityLevelConfigurationCondition{{Type: "Seen", Status: flowcontrolv1.ConditionTrue}}
	pl.Spec.Limited.LendablePercent = ptr.To[int32](50)
	if pl, err = cs.FlowcontrolV1().PriorityLevelConfigurations().UpdateStatus(ctx, pl, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(pl.Status.Conditions) != 1 || *pl.Spec.Limited.LendablePercent != 0 || *pl.Spec.Limited.NominalConcurrencyShares != 30 {
		t.Errorf("after /status: %+v, %+v", pl.Spec.Limited, pl.Status)
	}

	c, err := cs.NetworkingV1().ServiceCIDRs().Create(ctx, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "status-cidr"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.97.0.0/24"}},
		Status: networkingv1.ServiceCIDRStatus{Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse,
			Reason: "Set", LastTransitionTime: metav1.Now()}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.NetworkingV1().ServiceCIDRs().Delete(ctx, c.Name, metav1.DeleteOptions{}) })
	if len(c.Status.Conditions) != 1 {
		t.Errorf("a ServiceCIDR's create keeps its status: %+v", c.Status)
	}
	patch := []byte(`{"metadata":{"labels":{"a":"b"}},"spec":{"cidrs":["10.98.0.0/24"]},"status":{"conditions":null}}`)
	if c, err = cs.NetworkingV1().ServiceCIDRs().Patch(ctx, c.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	if len(c.Status.Conditions) != 0 || c.Spec.CIDRs[0] != "10.97.0.0/24" || c.Labels != nil {
		t.Errorf("after a /status patch: %+v", c)
	}
}

// TestConditionalUpdatesAndGeneration: CSIDrivers, CSINodes, CSIStorageCapacities,
// VolumeAttachments and RuntimeClasses take no update that does not name the resourceVersion
// it replaces; a CSIDriver counts its spec changes in its generation.
func TestConditionalUpdatesAndGeneration(t *testing.T) {
	ctx := context.Background()
	cs, _ := testchain.Clients(t, shared)
	d, err := cs.StorageV1().CSIDrivers().Create(ctx, &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "conditional.example.com"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.StorageV1().CSIDrivers().Delete(ctx, d.Name, metav1.DeleteOptions{}) })
	d.Spec.PodInfoOnMount = ptr.To(true)
	if d, err = cs.StorageV1().CSIDrivers().Update(ctx, d, metav1.UpdateOptions{}); err != nil || d.Generation != 2 {
		t.Fatalf("spec update: generation %d, %v", d.Generation, err)
	}
	d.ResourceVersion = ""
	body, _ := json.Marshal(d)
	resp, out := testchain.Do(t, shared.Admin, http.MethodPut, "/apis/storage.k8s.io/v1/csidrivers/"+d.Name, body, "application/json")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(out), "metadata.resourceVersion: Invalid value: 0: must be specified for an update") {
		t.Errorf("an update without resourceVersion: %d %s", resp.StatusCode, out)
	}
}
