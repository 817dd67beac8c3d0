package printers

import (
	"context"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// The printers of the storage, networking, node and flowcontrol kinds whose reference tables
// have no rows: each prints the object kube-apiserver returned for it (test/reference/defaulted),
// with the cells kube-apiserver's printers give it.
func TestCellsOfDefaultedObjects(t *testing.T) {
	for _, tc := range []struct {
		file    string
		obj     runtime.Object
		printer Printer
		want    []any
	}{
		{"csidriver", &storagev1.CSIDriver{}, CSIDriver, []any{"csi.example.com", true, false, false, "<unset>", false, "Persistent", "<unknown>"}},
		{"csinode", &storagev1.CSINode{}, CSINode, []any{"n1", int64(1), "<unknown>"}},
		{"csistoragecapacity", &storagev1.CSIStorageCapacity{}, CSIStorageCapacity, []any{"csc", "sc", "10Gi"}},
		{"volumeattachment", &storagev1.VolumeAttachment{}, VolumeAttachment, []any{"va", "csi.example.com", "pv", "n1", false, "<unknown>"}},
		{"volumeattributesclass", &storagev1.VolumeAttributesClass{}, VolumeAttributesClass, []any{"vac", "csi.example.com", "<unknown>"}},
		{"servicecidr", &networkingv1.ServiceCIDR{}, ServiceCIDR, []any{"cidr", "10.96.0.0/24", "<unknown>"}},
		{"runtimeclass", &nodev1.RuntimeClass{}, RuntimeClass, []any{"rtc", "runc", "<unknown>"}},
		{"flowschema", &flowcontrolv1.FlowSchema{}, FlowSchema, []any{"fs", "global-default", int64(1000), "<none>", "<unknown>", "?"}},
		{"prioritylevelconfiguration", &flowcontrolv1.PriorityLevelConfiguration{}, PriorityLevelConfiguration,
			[]any{"plc", "Limited", int64(30), int64(64), int64(8), int64(50), "<unknown>"}},
	} {
		loadDefaulted(t, tc.file, tc.obj)
		tc.obj.(metav1.Object).SetCreationTimestamp(metav1.Time{})
		checkRow(t, tc.file, tc.printer, tc.obj, true, tc.want)
	}
}

// TestIPAddressHasAnUnshownAgeCell: kube-apiserver's IPAddress printer declares Name and
// ParentRef and sends the age as a third cell.
func TestIPAddressHasAnUnshownAgeCell(t *testing.T) {
	a := &networkingv1.IPAddress{}
	loadDefaulted(t, "ipaddress", a)
	got, err := IPAddress.Row(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(IPAddress.Columns) != 2 || len(got) != 3 || got[0] != "192.168.7.7" || got[1] != "services/default/svc" {
		t.Errorf("columns %d, cells %#v", len(IPAddress.Columns), got)
	}
	a.Spec.ParentRef = &networkingv1.ParentReference{Group: "gateway.networking.k8s.io", Resource: "gateways", Name: "gw"}
	if got, _ := IPAddress.Row(a); got[1] != "gateways.gateway.networking.k8s.io/gw" {
		t.Errorf("a cluster-scoped parent of another group: %v", got[1])
	}
}

func TestCSIDriverCells(t *testing.T) {
	d := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: storagev1.CSIDriverSpec{
		TokenRequests: []storagev1.TokenRequest{{Audience: "a"}, {Audience: "b"}}}}
	checkRow(t, "undefaulted, with tokens", CSIDriver, d, true, []any{"d", true, false, false, "a,b", false, "<none>", "<unknown>"})
}

func TestPriorityLevelCells(t *testing.T) {
	exempt := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "exempt"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt}}
	checkRow(t, "exempt", PriorityLevelConfiguration, exempt, true, []any{"exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "<unknown>"})
	reject := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "catch-all"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](5),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}}
	checkRow(t, "rejecting", PriorityLevelConfiguration, reject, true, []any{"catch-all", "Limited", int64(5), "<none>", "<none>", "<none>", "<unknown>"})
}

// TestFlowSchemasListInMatchingOrder: a list shows the schemas in the order requests are
// matched against them, and a schema's Dangling condition in MissingPL.
func TestFlowSchemasListInMatchingOrder(t *testing.T) {
	fs := func(name string, precedence int32, dangling metav1.ConditionStatus) flowcontrolv1.FlowSchema {
		s := flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: precedence}}
		if dangling != "" {
			s.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionStatus(dangling)}}
		}
		return s
	}
	list := &flowcontrolv1.FlowSchemaList{Items: []flowcontrolv1.FlowSchema{
		fs("catch-all", 10000, "False"), fs("b", 800, "True"), fs("a", 800, ""), fs("exempt", 1, "False")}}
	table, err := FlowSchema.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, r := range table.Rows {
		got = append(got, r.Cells[0], r.Cells[5])
	}
	want := []any{"exempt", "False", "a", "?", "b", "True", "catch-all", "False"}
	if len(got) != len(want) {
		t.Fatalf("rows %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rows (name, MissingPL) %v, want %v", got, want)
			break
		}
	}
}
