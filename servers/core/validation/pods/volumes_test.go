package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestVolumes(t *testing.T) {
	cases := []struct {
		name   string
		source corev1.VolumeSource
		want   []string
	}{
		{"emptyDir", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}, nil},
		{"no source", corev1.VolumeSource{}, []string{`spec.volumes[0]: Required value: must specify a volume type`}},
		{"two sources: the one beside emptyDir is reported", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}, HostPath: &corev1.HostPathVolumeSource{Path: "/x"}},
			[]string{`spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type`}},
		{"emptyDir size", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("-1"))}},
			[]string{`spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`}},
		{"hostPath", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/a/../b", Type: ptr.To(corev1.HostPathType("Pipe"))}}, []string{
			`spec.volumes[0].hostPath.path: Invalid value: "/a/../b": must not contain '..'`,
			`spec.volumes[0].hostPath.type: Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
		}},
		{"secret", corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{Items: []corev1.KeyToPath{{Key: "k", Path: "../x"}}}}, []string{
			`spec.volumes[0].secret.secretName: Required value`,
			`spec.volumes[0].secret.items[0].path: Invalid value: "../x": must not contain '..'`,
			`spec.volumes[0].secret.items[0].path: Invalid value: "../x": must not start with '..'`,
		}},
		{"configMap", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: ptr.To[int32](0o1000), Items: []corev1.KeyToPath{{Path: "/abs"}}}}, []string{
			`spec.volumes[0].configMap.name: Required value`,
			`spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive`,
			`spec.volumes[0].configMap.items[0].key: Required value`,
			`spec.volumes[0].configMap.items[0].path: Invalid value: "/abs": must be a relative path`,
		}},
		{"nfs", corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Path: "rel"}}, []string{
			`spec.volumes[0].nfs.server: Required value`,
			`spec.volumes[0].nfs.path: Invalid value: "rel": must be an absolute path`,
		}},
		{"claim", corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{}},
			[]string{`spec.volumes[0].persistentVolumeClaim.claimName: Required value`}},
		{"downwardAPI", corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels"}},
			{Path: "app", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels['app']"}},
			{Path: "node", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}},
			{Path: "cpu", ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}},
			{Path: "none"},
		}}}, []string{
			`spec.volumes[0].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"`,
			`spec.volumes[0].downwardAPI.resourceFieldRef.containerName: Required value`,
			`spec.volumes[0].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required`,
		}},
		{"projected", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Items: []corev1.KeyToPath{{Key: "k", Path: "p"}}}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Items: []corev1.KeyToPath{{Key: "k", Path: "p"}}}},
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t", ExpirationSeconds: ptr.To[int64](60)}},
		}}}, []string{
			`spec.volumes[0].projected: Invalid value: "c": conflicting duplicate paths`,
			`spec.volumes[0].projected.sources[2].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`,
		}},
		{"csi", corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "Bad Driver!"}},
			[]string{`spec.volumes[0].csi.driver: Invalid value: "Bad Driver!": a lowercase RFC 1123 subdomain must consist of`}},
		{"image", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{PullPolicy: "Sometimes"}}, []string{
			`spec.volumes[0].image.reference: Required value`,
			`spec.volumes[0].image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
		}},
		{"ephemeral", corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{}}}, []string{
			`spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required`,
			`spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value`,
		}},
	}
	for _, tc := range cases {
		p := pod(t, nil)
		p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: tc.source}}
		validationtest.Expect(t, tc.name, ValidatePod(p), tc.want...)
	}

	validationtest.Expect(t, "names", ValidatePod(pod(t, func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "a"}, {Name: "a"}, {Name: "Bad_Name"}, {Name: ""}}
	})), `spec.volumes[1].name: Duplicate value: "a"`, `spec.volumes[2].name: Invalid value: "Bad_Name": `+labelMsg, `spec.volumes[3].name: Required value`)
	validationtest.Expect(t, "token needs a service account", ValidatePod(pod(t, func(p *corev1.Pod) {
		p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount = "", ""
		p.Spec.Volumes = []corev1.Volume{{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}}
	})), `spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set`)
	validationtest.Expect(t, "an ephemeral volume's claim name", ValidatePod(pod(t, func(p *corev1.Pod) {
		p.Name = "p."
		p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
			VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}}}
	})), `metadata.name: Invalid value: "p."`, `spec.volumes[0].name: Invalid value: "v": PVC name "p.-v": a lowercase RFC 1123 subdomain`)
}
