package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func persistentVolume(t *testing.T, edit func(*corev1.PersistentVolume)) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{}
	validationtest.Decode(t, pv, `
metadata: {name: pv, resourceVersion: "1"}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/pv}}`)
	if edit != nil {
		edit(pv)
	}
	return pv
}

func TestPersistentVolume(t *testing.T) {
	local := func(pv *corev1.PersistentVolume) {
		pv.Spec.HostPath, pv.Spec.Local = nil, &corev1.LocalVolumeSource{Path: "/mnt/disk"}
	}
	cases := []struct {
		name string
		edit func(*corev1.PersistentVolume)
		want []string
	}{
		{"valid", nil, nil},
		{"valid: a relative host path", func(pv *corev1.PersistentVolume) { pv.Spec.HostPath.Path = "tmp/pv" }, nil},
		{"valid: local with node affinity", func(pv *corev1.PersistentVolume) {
			local(pv)
			pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}}}}}}
		}, nil},
		{"name", func(pv *corev1.PersistentVolume) { pv.Name = "Bad_Name" }, []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`}},
		{"no capacity", func(pv *corev1.PersistentVolume) { pv.Spec.Capacity = nil },
			[]string{`spec.capacity: Required value`, `spec.capacity: Unsupported value: null: supported values: "storage"`}},
		{"zero capacity", func(pv *corev1.PersistentVolume) { pv.Spec.Capacity[corev1.ResourceStorage] = resource.MustParse("0") },
			[]string{`spec.capacity[storage]: Invalid value: "0": must be greater than zero`}},
		{"no source", func(pv *corev1.PersistentVolume) { pv.Spec.HostPath = nil }, []string{`spec: Required value: must specify a volume type`}},
		{"two sources", func(pv *corev1.PersistentVolume) { pv.Spec.NFS = &corev1.NFSVolumeSource{Server: "s", Path: "/p"} },
			[]string{`spec.nfs: Forbidden: may not specify more than 1 volume type`}},
		{"no access modes", func(pv *corev1.PersistentVolume) { pv.Spec.AccessModes = nil }, []string{`spec.accessModes: Required value`}},
		{"ReadWriteOncePod goes alone", func(pv *corev1.PersistentVolume) {
			pv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce}
		}, []string{`spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes`}},
		{"reclaim policy", func(pv *corev1.PersistentVolume) { pv.Spec.PersistentVolumeReclaimPolicy = "Keep" },
			[]string{`spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"`}},
		{"recycling the node's root", func(pv *corev1.PersistentVolume) {
			pv.Spec.HostPath.Path = "/"
			pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRecycle
		}, []string{`spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'`}},
		{"storage class", func(pv *corev1.PersistentVolume) { pv.Spec.StorageClassName = "Fast" },
			[]string{`spec.storageClassName: Invalid value: "Fast": a lowercase RFC 1123 subdomain`}},
		{"mount options on a host path", func(pv *corev1.PersistentVolume) { pv.Annotations = map[string]string{mountOptionAnnotation: "ro"} },
			[]string{`metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type`}},
		{"volume mode", func(pv *corev1.PersistentVolume) { pv.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeMode("Tape")) },
			[]string{`spec.volumeMode: Unsupported value: "Tape": supported values: "Block", "Filesystem"`}},
		{"local without node affinity", local, []string{`spec.nodeAffinity: Required value: Local volume requires node affinity`}},
		{"node affinity without requirements", func(pv *corev1.PersistentVolume) { pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{} },
			[]string{`spec.nodeAffinity.required: Required value: must specify required node constraints`}},
		{"csi", func(pv *corev1.PersistentVolume) {
			pv.Spec.HostPath, pv.Spec.CSI = nil, &corev1.CSIPersistentVolumeSource{Driver: "csi.example.com"}
		},
			[]string{`spec.csi.volumeHandle: Required value`}},
	}
	for _, tc := range cases {
		validationtest.Expect(t, tc.name, ValidatePersistentVolume(persistentVolume(t, tc.edit)), tc.want...)
	}

	old := persistentVolume(t, nil)
	update := func(edit func(*corev1.PersistentVolume)) field.ErrorList {
		pv := old.DeepCopy()
		edit(pv)
		return ValidatePersistentVolumeUpdate(pv, old)
	}
	validationtest.Expect(t, "capacity may change", update(func(pv *corev1.PersistentVolume) {
		pv.Spec.Capacity[corev1.ResourceStorage] = resource.MustParse("2Gi")
	}))
	validationtest.Expect(t, "the source may not", update(func(pv *corev1.PersistentVolume) { pv.Spec.HostPath.Path = "/tmp/y" }),
		"spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n")
	validationtest.Expect(t, "invalid on update", update(func(pv *corev1.PersistentVolume) { pv.Spec.AccessModes = nil }), `spec.accessModes: Required value`)
	validationtest.Expect(t, "status", ValidatePersistentVolumeStatusUpdate(persistentVolume(t, func(pv *corev1.PersistentVolume) { pv.Status.Phase = corev1.VolumeBound }), old))
}

func claim(t *testing.T, edit func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{}
	validationtest.Decode(t, pvc, `
metadata: {name: pvc, namespace: ns, resourceVersion: "1"}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}`)
	if edit != nil {
		edit(pvc)
	}
	return pvc
}

func TestPersistentVolumeClaim(t *testing.T) {
	cases := []struct {
		name string
		edit func(*corev1.PersistentVolumeClaim)
		want []string
	}{
		{"valid", nil, nil},
		{"no access modes", func(c *corev1.PersistentVolumeClaim) { c.Spec.AccessModes = nil },
			[]string{`spec.accessModes: Required value: at least 1 access mode is required`}},
		{"access mode", func(c *corev1.PersistentVolumeClaim) {
			c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{"ReadSometimes"}
		},
			[]string{`spec.accessModes: Unsupported value: "ReadSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`}},
		{"no storage request", func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }, []string{`spec.resources[storage]: Required value`}},
		{"zero storage request", func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("0")
		},
			[]string{`spec.resources[storage]: Invalid value: "0": must be greater than zero`}},
		{"storage class", func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = ptr.To("Bad_Class") },
			[]string{`spec.storageClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"volume mode", func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeMode("Tape")) },
			[]string{`spec.volumeMode: Unsupported value: "Tape": supported values: "Block", "Filesystem"`}},
		{"data source", func(c *corev1.PersistentVolumeClaim) {
			c.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "Secret", Name: "s"}
			c.Spec.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "other"}
		}, []string{
			`spec.dataSource: Invalid value: "Secret": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
			`spec: Invalid value: {}: must match dataSourceRef`,
		}},
	}
	for _, tc := range cases {
		validationtest.Expect(t, tc.name, ValidatePersistentVolumeClaim(claim(t, tc.edit)), tc.want...)
	}

	const immutable = "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"
	bound := func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv"; c.Status.Phase = corev1.ClaimBound }
	updates := []struct {
		name      string
		old, edit func(*corev1.PersistentVolumeClaim)
		want      []string
	}{
		{"bound to a volume", nil, func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv" }, nil},
		{"bound to another", bound, func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv2" }, []string{immutable}},
		{"given a class", nil, func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = ptr.To("fast") }, nil},
		{"access modes", nil, func(c *corev1.PersistentVolumeClaim) { c.Spec.AccessModes[0] = corev1.ReadWriteMany }, []string{immutable + "@@ -1,6 +1,6 @@\n {\n  \"AccessModes\": ["}},
		{"a bound claim grows", bound, func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
		}, nil},
		{"an unbound claim does not", nil, func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
		}, []string{immutable}},
		{"a claim shrinks below its capacity", func(c *corev1.PersistentVolumeClaim) {
			bound(c)
			c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
		}, func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("500Mi")
		}, []string{`spec.resources.requests.storage: Forbidden: field can not be less than status.capacity`}},
		{"volume mode", nil, func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock) },
			[]string{immutable, `volumeMode: Invalid value: "Block": field is immutable`}},
	}
	for _, tc := range updates {
		old := claim(t, tc.old)
		pvc := old.DeepCopy()
		tc.edit(pvc)
		validationtest.Expect(t, tc.name, ValidatePersistentVolumeClaimUpdate(pvc, old), tc.want...)
	}

	old := claim(t, nil)
	status := old.DeepCopy()
	status.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	status.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: "Sideways"}
	validationtest.Expect(t, "resize status", ValidatePersistentVolumeClaimStatusUpdate(status, old),
		`status.allocatedResourceStatuses: Unsupported value: "storage": supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"`)

	// A StatefulSet's claim templates are checked at their own path.
	validationtest.Expect(t, "claim template", ValidatePersistentVolumeClaimSpec(&corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}, field.NewPath("spec", "volumeClaimTemplates").Index(0).Child("spec")),
		`spec.volumeClaimTemplates[0].spec.resources[storage]: Required value`)
}
