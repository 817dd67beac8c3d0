package printers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/apichain/apichain/test/reference"
)

// referenceTable is one file of test/reference/tables: what kube-apiserver
// v1.37.2 returned for `kubectl get`.
type referenceTable struct {
	ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
	Rows              [][]interface{}                `json:"rows"`
}

// printersByReferenceFile maps each reference table file to the Printer of
// that resource.
var printersByReferenceFile = map[string]Printer{
	"componentstatuses":                      ComponentStatus,
	"configmaps":                             ConfigMap,
	"controllerrevisions.apps":               ControllerRevision,
	"cronjobs.batch":                         CronJob,
	"daemonsets.apps":                        DaemonSet,
	"deployments.apps":                       Deployment,
	"endpoints":                              Endpoints,
	"endpointslices.discovery.k8s.io":        EndpointSlice,
	"events.events.k8s.io":                   EventsV1Event,
	"events":                                 Event,
	"horizontalpodautoscalers.autoscaling":   HorizontalPodAutoscaler,
	"ingressclasses.networking.k8s.io":       IngressClass,
	"ingresses.networking.k8s.io":            Ingress,
	"jobs.batch":                             Job,
	"leases.coordination.k8s.io":             Lease,
	"limitranges":                            LimitRange,
	"namespaces":                             Namespace,
	"networkpolicies.networking.k8s.io":      NetworkPolicy,
	"nodes":                                  Node,
	"persistentvolumeclaims":                 PersistentVolumeClaim,
	"persistentvolumes":                      PersistentVolume,
	"poddisruptionbudgets.policy":            PodDisruptionBudget,
	"pods":                                   Pod,
	"podtemplates":                           PodTemplate,
	"priorityclasses.scheduling.k8s.io":      PriorityClass,
	"replicasets.apps":                       ReplicaSet,
	"replicationcontrollers":                 ReplicationController,
	"resourcequotas":                         ResourceQuota,
	"rolebindings.rbac.authorization.k8s.io": RoleBinding,
	"roles.rbac.authorization.k8s.io":        Role,
	"clusterroles.rbac.authorization.k8s.io": ClusterRole,
	"secrets":                                Secret,
	"serviceaccounts":                        ServiceAccount,
	"services":                               Service,
	"statefulsets.apps":                      StatefulSet,
	"storageclasses.storage.k8s.io":          StorageClass,
	"certificatesigningrequests.certificates.k8s.io":                 CertificateSigningRequest,
	"clusterrolebindings.rbac.authorization.k8s.io":                  ClusterRoleBinding,
	"mutatingwebhookconfigurations.admissionregistration.k8s.io":     MutatingWebhookConfiguration,
	"validatingadmissionpolicies.admissionregistration.k8s.io":       ValidatingAdmissionPolicy,
	"validatingadmissionpolicybindings.admissionregistration.k8s.io": ValidatingAdmissionPolicyBinding,
	"validatingwebhookconfigurations.admissionregistration.k8s.io":   ValidatingWebhookConfiguration,
	"deviceclasses.resource.k8s.io":                                  DeviceClass,
	"devicetaintrules.resource.k8s.io":                               DeviceTaintRule,
	"resourceclaims.resource.k8s.io":                                 ResourceClaim,
	"resourceclaimtemplates.resource.k8s.io":                         ResourceClaimTemplate,
	"resourceslices.resource.k8s.io":                                 ResourceSlice,
	"clustertrustbundles.certificates.k8s.io":                        ClusterTrustBundle,
	"podcertificaterequests.certificates.k8s.io":                     PodCertificateRequest,
	"storageversionmigrations.storagemigration.k8s.io":               StorageVersionMigration,
	"csidrivers.storage.k8s.io":                                      CSIDriver,
	"csinodes.storage.k8s.io":                                        CSINode,
	"csistoragecapacities.storage.k8s.io":                            CSIStorageCapacity,
	"volumeattachments.storage.k8s.io":                               VolumeAttachment,
	"volumeattributesclasses.storage.k8s.io":                         VolumeAttributesClass,
	"ipaddresses.networking.k8s.io":                                  IPAddress,
	"servicecidrs.networking.k8s.io":                                 ServiceCIDR,
	"runtimeclasses.node.k8s.io":                                     RuntimeClass,
	"flowschemas.flowcontrol.apiserver.k8s.io":                       FlowSchema,
	"prioritylevelconfigurations.flowcontrol.apiserver.k8s.io":       PriorityLevelConfiguration,
}

func loadReferenceTable(t *testing.T, name string) referenceTable {
	t.Helper()
	data, err := os.ReadFile(reference.Path("tables/" + name + ".json"))
	if err != nil {
		t.Fatalf("reading reference table %s: %v", name, err)
	}
	var table referenceTable
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatalf("decoding reference table %s: %v", name, err)
	}
	return table
}

// loadDefaulted decodes test/reference/defaulted/<name>.json into obj.
func loadDefaulted(t *testing.T, name string, obj runtime.Object) {
	t.Helper()
	data, err := os.ReadFile(reference.Path("defaulted/" + name + ".json"))
	if err != nil {
		t.Fatalf("reading defaulted object %s: %v", name, err)
	}
	if err := json.Unmarshal(data, obj); err != nil {
		t.Fatalf("decoding defaulted object %s: %v", name, err)
	}
}

// TestColumnsMatchReference compares every Printer's Columns with the column
// definitions kube-apiserver v1.37.2 returned, where the capture has them.
func TestColumnsMatchReference(t *testing.T) {
	files, err := filepath.Glob(reference.Path("tables/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(printersByReferenceFile) {
		t.Errorf("the reference has %d tables, %d are mapped to a Printer", len(files), len(printersByReferenceFile))
	}
	compared := 0
	for name, printer := range printersByReferenceFile {
		t.Run(name, func(t *testing.T) {
			ref := loadReferenceTable(t, name)
			if ref.ColumnDefinitions == nil {
				t.Skipf("the capture of %s has no columnDefinitions; columns follow upstream printers.go", name)
			}
			if !reflect.DeepEqual(printer.Columns, ref.ColumnDefinitions) {
				got, _ := json.MarshalIndent(printer.Columns, "", " ")
				want, _ := json.MarshalIndent(ref.ColumnDefinitions, "", " ")
				t.Errorf("columns differ from the reference\n got: %s\nwant: %s", got, want)
			}
		})
		if ref := loadReferenceTable(t, name); ref.ColumnDefinitions != nil {
			compared++
		}
	}
	if compared != 25 {
		t.Errorf("compared %d reference tables with columns, want 25", compared)
	}
}

// rowCase is one reference row and the object it was printed from.
type rowCase struct {
	table string
	row   int
	obj   runtime.Object
}

func referenceRowCases(t *testing.T) []rowCase {
	var cases []rowCase
	add := func(table string, row int, obj runtime.Object) {
		cases = append(cases, rowCase{table: table, row: row, obj: obj})
	}
	fromDefaulted := func(name string, obj runtime.Object) runtime.Object {
		loadDefaulted(t, name, obj)
		return obj
	}
	created := metav1.NewTime(time.Now().Add(-10 * time.Second))
	withCreated := func(obj runtime.Object) runtime.Object {
		obj.(metav1.Object).SetCreationTimestamp(created)
		return obj
	}

	// Objects created from defaulted/*.json.
	add("configmaps", 0, withCreated(fromDefaulted("configmap", &corev1.ConfigMap{})))
	add("cronjobs.batch", 0, withCreated(fromDefaulted("cronjob", &batchv1.CronJob{})))
	add("daemonsets.apps", 0, withCreated(fromDefaulted("daemonset", &appsv1.DaemonSet{})))
	add("deployments.apps", 0, withCreated(fromDefaulted("deployment", &appsv1.Deployment{})))
	add("events", 0, withCreated(fromDefaulted("event", &corev1.Event{})))
	add("horizontalpodautoscalers.autoscaling", 0, withCreated(fromDefaulted("hpa", &autoscalingv2.HorizontalPodAutoscaler{})))
	add("nodes", 0, withCreated(fromDefaulted("node", &corev1.Node{})))
	add("persistentvolumeclaims", 0, withCreated(fromDefaulted("pvc", &corev1.PersistentVolumeClaim{})))
	add("persistentvolumes", 0, withCreated(fromDefaulted("pv", &corev1.PersistentVolume{})))
	add("poddisruptionbudgets.policy", 0, withCreated(fromDefaulted("pdb", &policyv1.PodDisruptionBudget{})))
	add("pods", 0, withCreated(fromDefaulted("pod", &corev1.Pod{})))
	add("replicasets.apps", 0, withCreated(fromDefaulted("replicaset", &appsv1.ReplicaSet{})))
	add("replicationcontrollers", 0, withCreated(fromDefaulted("replicationcontroller", &corev1.ReplicationController{})))
	add("resourcequotas", 0, withCreated(fromDefaulted("resourcequota", &corev1.ResourceQuota{})))
	add("secrets", 0, withCreated(fromDefaulted("secret", &corev1.Secret{})))
	add("serviceaccounts", 0, withCreated(fromDefaulted("serviceaccount", &corev1.ServiceAccount{})))
	add("statefulsets.apps", 0, withCreated(fromDefaulted("statefulset", &appsv1.StatefulSet{})))

	// LimitRange uses the default convertor: "Created At" is the absolute
	// creation time, which the capture shows.
	lr := fromDefaulted("limitrange", &corev1.LimitRange{}).(*corev1.LimitRange)
	createdAt, err := time.Parse(time.RFC3339, "2026-12-02T15:48:56Z")
	if err != nil {
		t.Fatal(err)
	}
	lr.CreationTimestamp = metav1.NewTime(createdAt.Local())
	add("limitranges", 0, lr)

	// Rows for objects kube-apiserver made itself: built as equivalent objects.
	for i, name := range []string{"default", "kube-node-lease", "kube-public"} {
		ns := fromDefaulted("namespace", &corev1.Namespace{}).(*corev1.Namespace)
		ns.Name = name
		add("namespaces", i, withCreated(ns))
	}
	for i, name := range []string{"extension-apiserver-authentication", "kube-apiserver-legacy-service-account-token-tracking"} {
		add("configmaps", i+1, withCreated(&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
			Data:       map[string]string{"k": "v"},
		}))
	}
	svc := fromDefaulted("service", &corev1.Service{}).(*corev1.Service)
	svc.Name = "kubernetes"
	svc.Spec.ClusterIP = "10.0.0.1"
	svc.Spec.ClusterIPs = []string{"10.0.0.1"}
	svc.Spec.Selector = nil
	svc.Spec.Ports = []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(6443)}}
	add("services", 0, withCreated(svc))
	healthy := func(name string, status corev1.ConditionStatus, message string) *corev1.ComponentStatus {
		return &corev1.ComponentStatus{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Conditions: []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: status, Message: message}},
		}
	}
	add("componentstatuses", 0, healthy("scheduler", corev1.ConditionFalse, `Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused`))
	add("componentstatuses", 1, healthy("controller-manager", corev1.ConditionFalse, `Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused`))
	add("componentstatuses", 2, healthy("etcd-0", corev1.ConditionTrue, "ok"))
	return cases
}

// TestRowsMatchReference prints the objects behind the reference rows and
// compares the cells; Age cells (relative to the capture time) only have to be
// set.
func TestRowsMatchReference(t *testing.T) {
	cases := referenceRowCases(t)
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.table] = true
		ref := loadReferenceTable(t, tc.table)
		if tc.row >= len(ref.Rows) {
			t.Fatalf("%s: reference has no row %d", tc.table, tc.row)
		}
		want := ref.Rows[tc.row]
		printer := printersByReferenceFile[tc.table]
		got, err := printer.Row(tc.obj)
		if err != nil {
			t.Fatalf("%s row %d: %v", tc.table, tc.row, err)
		}
		if len(got) != len(want) || len(got) != len(printer.Columns) {
			t.Fatalf("%s row %d: got %d cells %v, reference has %d %v (%d columns)", tc.table, tc.row, len(got), got, len(want), want, len(printer.Columns))
		}
		for i := range want {
			column := printer.Columns[i].Name
			if column == "Age" {
				if s, ok := got[i].(string); !ok || s == "" || s == "<unknown>" {
					t.Errorf("%s row %d: Age cell %#v, want a duration", tc.table, tc.row, got[i])
				}
				continue
			}
			if !sameCell(got[i], want[i]) {
				t.Errorf("%s row %d column %q: got %#v (%T), reference %#v", tc.table, tc.row, column, got[i], got[i], want[i])
			}
		}
	}
	// Every captured row must be covered.
	for name := range printersByReferenceFile {
		if ref := loadReferenceTable(t, name); len(ref.Rows) > 0 && !covered[name] {
			t.Errorf("reference table %s has %d rows that no case covers", name, len(ref.Rows))
		}
	}
	t.Logf("compared %d reference rows", len(cases))
}

// sameCell compares a cell with its JSON-decoded reference: numbers must be
// int64 (as upstream prints them), strings strings and booleans booleans.
func sameCell(got, want interface{}) bool {
	switch w := want.(type) {
	case float64:
		g, ok := got.(int64)
		return ok && float64(g) == w
	case string:
		g, ok := got.(string)
		return ok && g == w
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case nil:
		return got == nil
	}
	return false
}
