package validation

// Table tests for PersistentVolume, PersistentVolumeClaim, LimitRange and ResourceQuota
// validation; cases follow kubernetes v1.37.2 pkg/apis/core/validation/validation_test.go
// (TestValidatePersistentVolumes, TestValidatePersistentVolumeClaim*, TestValidateLimitRange,
// TestValidateResourceQuota) with its messages.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func persistentVolume(mutate func(*v1.PersistentVolume)) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv", ResourceVersion: "1"},
		Spec: v1.PersistentVolumeSpec{
			Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: v1.PersistentVolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/tmp/x"}},
		},
	}
	mutate(pv)
	testScheme.Default(pv)
	return pv
}

func TestValidatePersistentVolume(t *testing.T) {
	cases := []struct {
		name string
		pv   *v1.PersistentVolume
		want []string
	}{
		{"valid", persistentVolume(func(*v1.PersistentVolume) {}), nil},
		{"valid local with node affinity", persistentVolume(func(pv *v1.PersistentVolume) {
			pv.Spec.HostPath, pv.Spec.Local = nil, &v1.LocalVolumeSource{Path: "/mnt/disk"}
			pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{"n1"}}}}}}}
		}), nil},
		{"no access modes", persistentVolume(func(pv *v1.PersistentVolume) { pv.Spec.AccessModes = nil }), []string{`spec.accessModes: Required value`}},
		{"RWOP with others", persistentVolume(func(pv *v1.PersistentVolume) {
			pv.Spec.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod, v1.ReadWriteOnce}
		}), []string{`spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes`}},
		{"no capacity", persistentVolume(func(pv *v1.PersistentVolume) { pv.Spec.Capacity = nil }),
			[]string{`spec.capacity: Required value`, `spec.capacity: Unsupported value: null: supported values: "storage"`}},
		{"no volume type", persistentVolume(func(pv *v1.PersistentVolume) { pv.Spec.HostPath = nil }), []string{`spec: Required value: must specify a volume type`}},
		{"two volume types", persistentVolume(func(pv *v1.PersistentVolume) { pv.Spec.NFS = &v1.NFSVolumeSource{Server: "s", Path: "/p"} }),
			[]string{`spec.nfs: Forbidden: may not specify more than 1 volume type`}},
		{"local without node affinity", persistentVolume(func(pv *v1.PersistentVolume) {
			pv.Spec.HostPath, pv.Spec.Local = nil, &v1.LocalVolumeSource{Path: "/mnt/disk"}
		}),
			[]string{`spec.nodeAffinity: Required value: Local volume requires node affinity`}},
		{"recycle root host path", persistentVolume(func(pv *v1.PersistentVolume) {
			pv.Spec.HostPath.Path = "/"
			pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRecycle
		}), []string{`spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'`}},
		{"mount options on host path", persistentVolume(func(pv *v1.PersistentVolume) {
			pv.Annotations = map[string]string{mountOptionAnnotation: "ro"}
		}), []string{`metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidatePersistentVolume(tc.pv), tc.want)
	}

	old := persistentVolume(func(*v1.PersistentVolume) {})
	moved := old.DeepCopy()
	moved.Spec.HostPath.Path = "/tmp/y"
	expectErrorPrefixes(t, "source is immutable", ValidatePersistentVolumeUpdate(moved, old),
		[]string{"spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n"})
	bigger := old.DeepCopy()
	bigger.Spec.Capacity[v1.ResourceStorage] = resource.MustParse("2Gi")
	expectErrors(t, "capacity may change", ValidatePersistentVolumeUpdate(bigger, old), nil)
	// upstream's update validation validates the new object twice: its errors come twice
	noModes := old.DeepCopy()
	noModes.Spec.AccessModes = nil
	expectErrors(t, "update errors twice", ValidatePersistentVolumeUpdate(noModes, old), []string{`spec.accessModes: Required value`, `spec.accessModes: Required value`})
}

func persistentVolumeClaim(mutate func(*v1.PersistentVolumeClaim)) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc", Namespace: "default", ResourceVersion: "1"},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	mutate(pvc)
	testScheme.Default(pvc)
	return pvc
}

func TestValidatePersistentVolumeClaim(t *testing.T) {
	cases := []struct {
		name string
		pvc  *v1.PersistentVolumeClaim
		want []string
	}{
		{"valid", persistentVolumeClaim(func(*v1.PersistentVolumeClaim) {}), nil},
		{"no access modes", persistentVolumeClaim(func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.AccessModes = nil }),
			[]string{`spec.accessModes: Required value: at least 1 access mode is required`}},
		{"no storage request", persistentVolumeClaim(func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.Resources.Requests = nil }),
			[]string{`spec.resources[storage]: Required value`}},
		{"zero storage request", persistentVolumeClaim(func(pvc *v1.PersistentVolumeClaim) {
			pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("0")
		}), []string{`spec.resources[storage]: Invalid value: "0": must be greater than zero`}},
		{"bad class name", persistentVolumeClaim(func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.StorageClassName = ptr.To("Bad_Class") }),
			[]string{`spec.storageClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidatePersistentVolumeClaim(tc.pvc), tc.want)
	}

	old := persistentVolumeClaim(func(*v1.PersistentVolumeClaim) {})
	bound := old.DeepCopy()
	bound.Spec.VolumeName = "pv"
	expectErrors(t, "bind once", ValidatePersistentVolumeClaimUpdate(bound, old), nil)
	rebound := bound.DeepCopy()
	rebound.Spec.VolumeName = "pv2"
	expectErrorPrefixes(t, "rebind", ValidatePersistentVolumeClaimUpdate(rebound, bound),
		[]string{"spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"})
	grown := old.DeepCopy()
	grown.Status.Phase = v1.ClaimBound
	grown.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("2Gi")
	expectErrors(t, "a bound claim grows", ValidatePersistentVolumeClaimUpdate(grown, old), nil)
	withCapacity := old.DeepCopy()
	withCapacity.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
	shrunk := withCapacity.DeepCopy()
	shrunk.Status.Phase = v1.ClaimBound
	shrunk.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("500Mi")
	expectErrors(t, "a claim shrinks below its capacity", ValidatePersistentVolumeClaimUpdate(shrunk, withCapacity),
		[]string{`spec.resources.requests.storage: Forbidden: field can not be less than status.capacity`})
	withClass := old.DeepCopy()
	withClass.Spec.StorageClassName = ptr.To("fast")
	expectErrors(t, "class set once", ValidatePersistentVolumeClaimUpdate(withClass, old), nil)
	status := old.DeepCopy()
	status.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
	status.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: "Sideways"}
	expectErrors(t, "bad resize status", ValidatePersistentVolumeClaimStatusUpdate(status, old),
		[]string{`status.allocatedResourceStatuses: Unsupported value: "storage": supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"`})
}

func TestValidateLimitRange(t *testing.T) {
	lr := func(items ...v1.LimitRangeItem) *v1.LimitRange {
		l := &v1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "lr", Namespace: "default"}, Spec: v1.LimitRangeSpec{Limits: items}}
		testScheme.Default(l)
		return l
	}
	q := resource.MustParse
	cases := []struct {
		name string
		lr   *v1.LimitRange
		want []string
	}{
		{"valid", lr(v1.LimitRangeItem{Type: v1.LimitTypeContainer, Default: v1.ResourceList{v1.ResourceCPU: q("100m")}}), nil},
		{"valid pvc", lr(v1.LimitRangeItem{Type: v1.LimitTypePersistentVolumeClaim, Max: v1.ResourceList{v1.ResourceStorage: q("10Gi")}}), nil},
		{"duplicate type", lr(v1.LimitRangeItem{Type: v1.LimitTypePod}, v1.LimitRangeItem{Type: v1.LimitTypePod}),
			[]string{`spec.limits[1].type: Duplicate value: "Pod"`}},
		{"unknown type", lr(v1.LimitRangeItem{Type: "Node"}), []string{`spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully qualified`}},
		{"pod default", lr(v1.LimitRangeItem{Type: v1.LimitTypePod, Default: v1.ResourceList{v1.ResourceCPU: q("1")}}),
			[]string{"spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"}},
		{"min above max", lr(v1.LimitRangeItem{Type: v1.LimitTypeContainer, Min: v1.ResourceList{v1.ResourceCPU: q("2")}, Max: v1.ResourceList{v1.ResourceCPU: q("1")}}),
			// default and defaultRequest default to max
			[]string{`spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1`,
				`spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1`,
				`spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1`}},
		{"pvc without bounds", lr(v1.LimitRangeItem{Type: v1.LimitTypePersistentVolumeClaim}),
			[]string{`spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateLimitRange(tc.lr), tc.want)
	}
}

func TestValidateResourceQuota(t *testing.T) {
	rq := func(mutate func(*v1.ResourceQuota)) *v1.ResourceQuota {
		r := &v1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "rq", Namespace: "default", ResourceVersion: "1"},
			Spec: v1.ResourceQuotaSpec{Hard: v1.ResourceList{v1.ResourcePods: resource.MustParse("10")}}}
		mutate(r)
		testScheme.Default(r)
		return r
	}
	cases := []struct {
		name string
		rq   *v1.ResourceQuota
		want []string
	}{
		{"valid", rq(func(*v1.ResourceQuota) {}), nil},
		{"valid scopes", rq(func(r *v1.ResourceQuota) {
			r.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeNotTerminating}
		}), nil},
		{"fractional pods", rq(func(r *v1.ResourceQuota) { r.Spec.Hard[v1.ResourcePods] = resource.MustParse("1.5") }),
			[]string{`spec.hard[pods]: Invalid value: "1500m": must be an integer`}},
		{"negative", rq(func(r *v1.ResourceQuota) { r.Spec.Hard[v1.ResourceCPU] = resource.MustParse("-1") }),
			[]string{`spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0`}},
		{"unknown resource", rq(func(r *v1.ResourceQuota) { r.Spec.Hard["widgets"] = resource.MustParse("1") }),
			[]string{`spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified`,
				`spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota`}},
		{"conflicting scopes", rq(func(r *v1.ResourceQuota) {
			r.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort}
		}), []string{`spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes`}},
		{"scope not for resource", rq(func(r *v1.ResourceQuota) {
			r.Spec.Hard = v1.ResourceList{v1.ResourceSecrets: resource.MustParse("1")}
			r.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeTerminating}
		}), []string{`spec.scopes: Invalid value: ["Terminating"]: unsupported scope applied to resource`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateResourceQuota(tc.rq), tc.want)
	}
	old := rq(func(*v1.ResourceQuota) {})
	scoped := old.DeepCopy()
	scoped.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeNotTerminating}
	expectErrors(t, "scopes are immutable", ValidateResourceQuotaUpdate(scoped, old), []string{`spec.scopes: Invalid value: ["NotTerminating"]: field is immutable`})
}
