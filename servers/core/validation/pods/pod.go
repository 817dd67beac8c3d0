package pods

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var (
	metadata = field.NewPath("metadata")
	specPath = field.NewPath("spec")
)

// ValidatePod is the rule list of a Pod being created.
func ValidatePod(pod *corev1.Pod) field.ErrorList {
	spec := newPodSpec(&pod.Spec, nil, &pod.ObjectMeta, true)
	return validation.Join(
		validation.Meta(&pod.ObjectMeta, true, validation.SubdomainName, metadata),
		podAnnotations(metadata.Child("annotations"), pod.Annotations, &pod.Spec),
		spec.validate(specPath),
		validation.When(len(pod.Spec.EphemeralContainers) > 0, field.Forbidden(specPath.Child("ephemeralContainers"), "cannot be set on create")),
		validation.When(pod.Spec.NodeName != "" && len(pod.Spec.SchedulingGates) > 0,
			field.Forbidden(specPath.Child("nodeName"), "cannot be set until all schedulingGates have been cleared")),
	)
}

// ValidatePodUpdate is the rule list of a Pod update: the new pod must be valid, and only the
// few fields of update.go may change.
func ValidatePodUpdate(pod, old *corev1.Pod) field.ErrorList {
	spec := newPodSpec(&pod.Spec, &old.Spec, &pod.ObjectMeta, true)
	return validation.Join(
		validation.MetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, metadata),
		podAnnotations(metadata.Child("annotations"), pod.Annotations, &pod.Spec),
		mirrorAnnotationUnchanged(metadata.Child("annotations"), pod.Annotations, old.Annotations),
		spec.validate(specPath),
		podSpecUpdate(specPath, &pod.Spec, &old.Spec),
	)
}

// podAnnotations: the annotations that mean something to a pod.
func podAnnotations(path *field.Path, annotations map[string]string, spec *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	// The ReplicaSet controller deletes pods with a lower cost first: a plain 32-bit integer.
	if cost, ok := annotations[corev1.PodDeletionCost]; ok {
		if n, err := strconv.ParseInt(cost, 10, 32); err != nil || strconv.FormatInt(n, 10) != cost {
			errs = append(errs, field.Invalid(path.Key(corev1.PodDeletionCost), cost, "must be a 32bit integer"))
		}
	}
	// A mirror pod stands for a static pod that a kubelet runs: it has a node.
	if mirror, ok := annotations[corev1.MirrorPodAnnotationKey]; ok && spec.NodeName == "" {
		errs = append(errs, field.Invalid(path.Key(corev1.MirrorPodAnnotationKey), mirror, "must set spec.nodeName if mirror pod annotation is set"))
	}
	return errs
}

// mirrorAnnotationUnchanged: only the kubelet creates mirror pods; nobody turns a pod into one.
func mirrorAnnotationUnchanged(path *field.Path, annotations, old map[string]string) field.ErrorList {
	value, has := annotations[corev1.MirrorPodAnnotationKey]
	oldValue, had := old[corev1.MirrorPodAnnotationKey]
	key := path.Key(corev1.MirrorPodAnnotationKey)
	switch {
	case has && !had:
		return field.ErrorList{field.Forbidden(key, "may not add mirror pod annotation")}
	case had && (!has || value != oldValue):
		return field.ErrorList{field.Forbidden(key, "may not remove or update mirror pod annotation")}
	}
	return nil
}

// ValidateBinding is the rule list of a pods/binding request: it names the node to run on.
func ValidateBinding(binding *corev1.Binding) field.ErrorList {
	target := field.NewPath("target")
	return validation.Join(
		validation.When(binding.Target.Kind != "" && binding.Target.Kind != "Node",
			field.NotSupported(target.Child("kind"), binding.Target.Kind, []string{"Node", "<empty>"})),
		validation.Required(target.Child("name"), binding.Target.Name),
		ifSet(target.Child("name"), binding.Target.Name, validation.DNSSubdomain),
	)
}

// ValidatePodTemplate is the rule list of a PodTemplate being created.
func ValidatePodTemplate(pt *corev1.PodTemplate) field.ErrorList {
	return validation.Join(
		validation.Meta(&pt.ObjectMeta, true, validation.SubdomainName, metadata),
		ValidatePodTemplateSpec(&pt.Template, nil, field.NewPath("template")),
	)
}

// ValidatePodTemplateUpdate is the rule list of a PodTemplate update: any valid template.
func ValidatePodTemplateUpdate(pt, old *corev1.PodTemplate) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&pt.ObjectMeta, &old.ObjectMeta, metadata),
		ValidatePodTemplateSpec(&pt.Template, &old.Template, field.NewPath("template")),
	)
}

// ValidatePodTemplateSpec checks a pod template at path: its labels and annotations and the pod
// spec it stamps out; old is the stored template on update, nil on create. The workload kinds
// call it for spec.template and check themselves that the template is there, that its labels
// match their selector, and the restart policies they allow (spec.template.spec.restartPolicy
// is checked here only as a pod's: Always, OnFailure or Never).
func ValidatePodTemplateSpec(template, old *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	var oldSpec *corev1.PodSpec
	if old != nil {
		oldSpec = &old.Spec
	}
	spec := newPodSpec(&template.Spec, oldSpec, &template.ObjectMeta, false)
	// kube-apiserver reports a template's label and annotation errors at template.labels and
	// template.annotations, without "metadata".
	return validation.Join(
		validation.Labels(path.Child("labels"), template.Labels),
		validation.Annotations(path.Child("annotations"), template.Annotations),
		podAnnotations(path.Child("annotations"), template.Annotations, &template.Spec),
		spec.validate(path.Child("spec")),
		validation.When(len(template.Spec.EphemeralContainers) > 0,
			field.Forbidden(path.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template")),
	)
}

// templateMeta checks the metadata of an embedded template (a claim template of an ephemeral
// volume): only labels and annotations mean something there.
func templateMeta(path *field.Path, meta *metav1.ObjectMeta) field.ErrorList {
	return validation.Join(
		validation.Labels(path.Child("labels"), meta.Labels),
		validation.Annotations(path.Child("annotations"), meta.Annotations),
	)
}
