package pods

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestPodTemplate(t *testing.T) {
	pt := &corev1.PodTemplate{}
	validationtest.Decode(t, pt, `
metadata: {name: pt, namespace: ns, resourceVersion: "1"}
template:
  metadata: {labels: {'bad key!': v}}
  spec: {containers: [{name: c}], ephemeralContainers: [{name: debug, image: busybox}]}`)
	validationtest.Expect(t, "invalid", ValidatePodTemplate(pt),
		`template.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters`,
		"template.spec.containers[0].image: Required value",
		"template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template")

	good := pt.DeepCopy()
	good.Template.Labels = nil
	good.Template.Spec.Containers[0].Image = "nginx"
	good.Template.Spec.EphemeralContainers = nil
	validationtest.Expect(t, "valid", ValidatePodTemplate(good))
	renamed := good.DeepCopy()
	renamed.Name = "other"
	validationtest.Expect(t, "rename", ValidatePodTemplateUpdate(renamed, good), `metadata.name: Invalid value: "other": field is immutable`)
	changed := good.DeepCopy()
	changed.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	validationtest.Expect(t, "a template may change", ValidatePodTemplateUpdate(changed, good))

	// The rules that hold only once a pod exists (a service account for its token, no
	// whitespace around images) do not hold for its template; the workload kinds check
	// their template at their own path.
	spec := good.Template.DeepCopy()
	spec.Spec.Containers[0].Image = "nginx "
	spec.Spec.ServiceAccountName, spec.Spec.DeprecatedServiceAccount = "", ""
	spec.Spec.Volumes = []corev1.Volume{{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3600)}}}}}}}
	validationtest.Expect(t, "template only", ValidatePodTemplateSpec(spec, nil, field.NewPath("spec", "template")))
	spec.Spec.RestartPolicy = "Sometimes"
	validationtest.Expect(t, "at the caller's path", ValidatePodTemplateSpec(spec, nil, field.NewPath("spec", "template")),
		`spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`)

	// A label value that selectors may no longer hold stays allowed in a stored template.
	stale := good.Template.DeepCopy()
	stale.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"no good"}}}}, TopologyKey: "zone"}}}}
	path := field.NewPath("template")
	validationtest.Expect(t, "invalid label value in a new selector", ValidatePodTemplateSpec(stale, nil, path),
		`template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values[0]: Invalid value: "no good"`)
	validationtest.Expect(t, "kept in a stored one", ValidatePodTemplateSpec(stale, stale.DeepCopy(), path))
}

// TestAcceptedObjects: what kube-apiserver accepted and returned (the reference's defaulted
// objects) is valid, on create and as an update that changes nothing.
func TestAcceptedObjects(t *testing.T) {
	for file, kind := range map[string]string{"pod.json": "Pod", "pod-latest-image.json": "Pod",
		"pv.json": "PersistentVolume", "pvc.json": "PersistentVolumeClaim"} {
		validationtest.Accepted(t, file, kinds[kind])
	}
	// Pods' status as the kubelet writes it.
	p := &corev1.Pod{}
	raw := validationtest.ReadReference(t, "defaulted/pod.json")
	validationtest.Decode(t, p, string(raw))
	p.ResourceVersion = "1"
	validationtest.Expect(t, "pod status", ValidatePodStatusUpdate(p.DeepCopy(), p))
}

// TestMessages: the Pod errors of validation-messages.txt, as kubectl printed them for
// kube-apiserver: one cause after a colon, several as a list.
func TestMessages(t *testing.T) {
	raw := validationtest.ReadReference(t, "validation-messages.txt")
	tested := 0
	for _, block := range strings.Split(string(raw), "### ")[1:] {
		input, want, _ := strings.Cut(block, "\n")
		if !strings.Contains(input, "kind: Pod,") {
			continue
		}
		p := &corev1.Pod{}
		validationtest.Decode(t, p, input)
		var causes []string
		for _, e := range ValidatePod(p) {
			causes = append(causes, e.Error())
		}
		got := fmt.Sprintf("The Pod %q is invalid: ", p.Name)
		if len(causes) == 1 {
			got += causes[0]
		} else {
			got += "\n* " + strings.Join(causes, "\n* ")
		}
		if want = strings.TrimSpace(want); got != want {
			t.Errorf("%s:\n got  %s\n want %s", input, got, want)
		}
		tested++
	}
	if tested != 3 {
		t.Errorf("tested %d Pod messages, the reference has 3", tested)
	}
}
