package validation

// apps/v1 StatefulSet validation, ported from kubernetes v1.37.2
// pkg/apis/apps/validation/validation.go (see apps.go).

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	unversionedvalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// ValidateStatefulSetName can be used to check whether the given StatefulSet name is valid.
func ValidateStatefulSetName(name string, prefix bool) []string {
	return apimachineryvalidation.NameIsDNSLabel(name, prefix)
}

// statefulSetValidationOptions are upstream's StatefulSetValidationOptions.
type statefulSetValidationOptions struct {
	AllowInvalidServiceName          bool
	SkipValidatePodTemplateSpec      bool
	SkipValidateVolumeClaimTemplates bool
	AllowStatefulSetRecreateStrategy bool
}

// ---- StatefulSet ----

// ValidateStatefulSet is the statefulset strategy's Validate.
func ValidateStatefulSet(statefulSet *appsv1.StatefulSet) field.ErrorList {
	opts := podTemplateValidationOptions(&statefulSet.Spec.Template, nil)
	setOpts := statefulSetValidationOptions{} // require valid serviceNames in new StatefulSets
	allErrs := ValidateObjectMeta(&statefulSet.ObjectMeta, true, ValidateStatefulSetName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateStatefulSetSpec(&statefulSet.Spec, field.NewPath("spec"), opts, setOpts)...)
	return allErrs
}

// ValidateStatefulSetUpdate is the statefulset strategy's ValidateUpdate.
func ValidateStatefulSetUpdate(statefulSet, oldStatefulSet *appsv1.StatefulSet) field.ErrorList {
	setOpts := statefulSetValidationOptions{
		AllowInvalidServiceName:          true, // serviceName is immutable, tolerate existing invalid names on update
		SkipValidateVolumeClaimTemplates: true, // volumeClaimTemplates are immutable, tolerate previously persisted invalid values on update
		AllowStatefulSetRecreateStrategy: oldStatefulSet.Spec.UpdateStrategy.Type == appsv1.StatefulSetUpdateStrategyType("Recreate"),
	}
	opts := podTemplateValidationOptions(&statefulSet.Spec.Template, &oldStatefulSet.Spec.Template)

	allErrs := ValidateObjectMetaUpdate(&statefulSet.ObjectMeta, &oldStatefulSet.ObjectMeta, field.NewPath("metadata"))
	// In order to tolerate the existing sts, we choose to skip the validation error of old sts podTemplateSpec.
	if len(validateStatefulSetSpec(&oldStatefulSet.Spec, nil, opts, setOpts)) > 0 {
		setOpts.SkipValidatePodTemplateSpec = true
	}
	specPath := field.NewPath("spec")
	allErrs = append(allErrs, validateStatefulSetSpec(&statefulSet.Spec, specPath, opts, setOpts)...)

	allErrs = append(allErrs, ValidateImmutableField(statefulSet.Spec.Selector, oldStatefulSet.Spec.Selector, specPath.Child("selector"))...)
	allErrs = append(allErrs, validateImmutableInternal(statefulSet.Spec.VolumeClaimTemplates, oldStatefulSet.Spec.VolumeClaimTemplates, specPath.Child("volumeClaimTemplates"))...)
	allErrs = append(allErrs, ValidateImmutableField(statefulSet.Spec.ServiceName, oldStatefulSet.Spec.ServiceName, specPath.Child("serviceName"))...)
	allErrs = append(allErrs, ValidateImmutableField(statefulSet.Spec.PodManagementPolicy, oldStatefulSet.Spec.PodManagementPolicy, specPath.Child("podManagementPolicy"))...)
	return allErrs
}

// ValidateStatefulSetStatusUpdate is the statefulset status strategy's ValidateUpdate.
func ValidateStatefulSetStatusUpdate(statefulSet, oldStatefulSet *appsv1.StatefulSet) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, validateStatefulSetStatus(&statefulSet.Status, field.NewPath("status"))...)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&statefulSet.ObjectMeta, &oldStatefulSet.ObjectMeta, field.NewPath("metadata"))...)
	if isDecremented(statefulSet.Status.CollisionCount, oldStatefulSet.Status.CollisionCount) {
		value := ptr.Deref(statefulSet.Status.CollisionCount, 0)
		allErrs = append(allErrs, field.Invalid(field.NewPath("status").Child("collisionCount"), value, "cannot be decremented"))
	}
	return allErrs
}

func validatePersistentVolumeClaimRetentionPolicyType(policy appsv1.PersistentVolumeClaimRetentionPolicyType, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch policy {
	case appsv1.RetainPersistentVolumeClaimRetentionPolicyType:
	case appsv1.DeletePersistentVolumeClaimRetentionPolicyType:
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath, policy, []string{string(appsv1.RetainPersistentVolumeClaimRetentionPolicyType), string(appsv1.DeletePersistentVolumeClaimRetentionPolicyType)}))
	}
	return allErrs
}

func validatePersistentVolumeClaimRetentionPolicy(policy *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if policy != nil {
		allErrs = append(allErrs, validatePersistentVolumeClaimRetentionPolicyType(policy.WhenDeleted, fldPath.Child("whenDeleted"))...)
		allErrs = append(allErrs, validatePersistentVolumeClaimRetentionPolicyType(policy.WhenScaled, fldPath.Child("whenScaled"))...)
	}
	return allErrs
}

func volumesToAddForTemplates(spec *appsv1.StatefulSetSpec) map[string]v1.Volume {
	volumes := make(map[string]v1.Volume)
	templates := spec.VolumeClaimTemplates
	for i := range templates {
		volumes[templates[i].Name] = v1.Volume{
			Name: templates[i].Name,
			VolumeSource: v1.VolumeSource{
				PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{
					ClaimName: templates[i].Name,
				},
			},
		}
	}
	return volumes
}

func validateVolumeClaimTemplates(volumeClaimTemplates []v1.PersistentVolumeClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, pvc := range volumeClaimTemplates {
		allErrs = append(allErrs, validatePersistentVolumeClaimSpec(&pvc.Spec, fldPath.Index(i).Child("spec"))...)
	}
	return allErrs
}

// validatePodTemplateSpecForStatefulSet validates the given template and ensures that it is in
// accordance with the desired selector.
func validatePodTemplateSpecForStatefulSet(template *v1.PodTemplateSpec, selector labels.Selector, fldPath *field.Path, opts podValidationOptions, setOpts statefulSetValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	if template == nil {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	} else {
		if !selector.Empty() {
			// Verify that the StatefulSet selector matches the labels in template.
			labels := labels.Set(template.Labels)
			if !selector.Matches(labels) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("metadata", "labels"), template.Labels, "`selector` does not match template `labels`"))
			}
		}
		if !setOpts.SkipValidatePodTemplateSpec {
			allErrs = append(allErrs, validatePodTemplateSpec(template, fldPath, opts)...)
		}
		allErrs = append(allErrs, unversionedvalidation.ValidateLabels(template.Labels, fldPath.Child("labels"))...)
		allErrs = append(allErrs, ValidateAnnotations(template.Annotations, fldPath.Child("annotations"))...)
		allErrs = append(allErrs, validatePodSpecificAnnotations(template.Annotations, &template.Spec, fldPath.Child("annotations"), opts)...)
	}
	return allErrs
}

func validateStatefulSetSpec(spec *appsv1.StatefulSetSpec, fldPath *field.Path, opts podValidationOptions, setOpts statefulSetValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}

	switch spec.PodManagementPolicy {
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("podManagementPolicy"), spec.PodManagementPolicy, fmt.Sprintf("must be '%s' or '%s'", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement)))
	}

	const recreate = appsv1.StatefulSetUpdateStrategyType("Recreate")
	switch {
	case spec.UpdateStrategy.Type == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("updateStrategy"), ""))
	case spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType:
		if spec.UpdateStrategy.RollingUpdate != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("updateStrategy").Child("rollingUpdate"), internal(statefulSetRollingUpdate(spec.UpdateStrategy.RollingUpdate)),
				fmt.Sprintf("only allowed for updateStrategy '%s'", appsv1.RollingUpdateStatefulSetStrategyType)))
		}
	case spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType:
		if spec.UpdateStrategy.RollingUpdate != nil {
			allErrs = append(allErrs, validateRollingUpdateStatefulSet(spec.UpdateStrategy.RollingUpdate, fldPath.Child("updateStrategy", "rollingUpdate"))...)
		}
	case spec.UpdateStrategy.Type == recreate && setOpts.AllowStatefulSetRecreateStrategy:
		if spec.UpdateStrategy.RollingUpdate != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("updateStrategy").Child("rollingUpdate"), internal(statefulSetRollingUpdate(spec.UpdateStrategy.RollingUpdate)),
				fmt.Sprintf("only allowed for updateStrategy '%s'", appsv1.RollingUpdateStatefulSetStrategyType)))
		}
	default:
		validValues := fmt.Sprintf("must be '%s' or '%s'", appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType)
		if setOpts.AllowStatefulSetRecreateStrategy {
			validValues = fmt.Sprintf("must be '%s', '%s', or '%s'", appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType, recreate)
		}
		allErrs = append(allErrs, field.Invalid(fldPath.Child("updateStrategy"), internal(statefulSetUpdateStrategy(spec.UpdateStrategy)), validValues))
	}

	allErrs = append(allErrs, validatePersistentVolumeClaimRetentionPolicy(spec.PersistentVolumeClaimRetentionPolicy, fldPath.Child("persistentVolumeClaimRetentionPolicy"))...)
	if !setOpts.SkipValidateVolumeClaimTemplates {
		allErrs = append(allErrs, validateVolumeClaimTemplates(spec.VolumeClaimTemplates, fldPath.Child("volumeClaimTemplates"))...)
	}

	allErrs = append(allErrs, ValidateNonnegativeField(int64(ptr.Deref(spec.Replicas, 0)), fldPath.Child("replicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))...)
	if spec.Ordinals != nil {
		replicaStartOrdinal := spec.Ordinals.Start
		allErrs = append(allErrs, ValidateNonnegativeField(int64(replicaStartOrdinal), fldPath.Child("ordinals.start"))...)
	}

	if !setOpts.AllowInvalidServiceName && len(spec.ServiceName) > 0 {
		allErrs = append(allErrs, ValidateDNS1123Label(spec.ServiceName, fldPath.Child("serviceName"))...)
	}

	if spec.Selector == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("selector"), ""))
	} else {
		// validate selector strictly, spec.selector was always required to pass LabelSelectorAsSelector below
		allErrs = append(allErrs, unversionedvalidation.ValidateLabelSelector(spec.Selector, unversionedvalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}, fldPath.Child("selector"))...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("selector"), spec.Selector, "empty selector is invalid for statefulset"))
		}
	}

	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	if err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("selector"), spec.Selector, ""))
	} else {
		templateToValidate := &spec.Template
		if len(spec.Template.Spec.Subdomain) > 0 || len(spec.Template.Spec.Hostname) > 0 || len(spec.VolumeClaimTemplates) > 0 {
			templateToValidate = templateToValidate.DeepCopy()
			// overwritten by controller to spec.ServiceName in initIdentity, don't validate
			templateToValidate.Spec.Subdomain = ""
			// overwritten by controller to pod.Name in initIdentity, don't validate
			templateToValidate.Spec.Hostname = ""
			if len(spec.VolumeClaimTemplates) > 0 {
				templateVolumes := volumesToAddForTemplates(spec)
				newVolumes := make([]v1.Volume, 0, len(templateVolumes))
				for _, v := range templateVolumes {
					newVolumes = append(newVolumes, v)
				}
				for _, v := range templateToValidate.Spec.Volumes {
					if _, ok := templateVolumes[v.Name]; !ok {
						newVolumes = append(newVolumes, v)
					}
				}
				templateToValidate.Spec.Volumes = newVolumes
			}
		}
		allErrs = append(allErrs, validatePodTemplateSpecForStatefulSet(templateToValidate, selector, fldPath.Child("template"), opts, setOpts)...)
	}

	if spec.Template.Spec.RestartPolicy != v1.RestartPolicyAlways {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("template", "spec", "restartPolicy"), spec.Template.Spec.RestartPolicy, []string{string(v1.RestartPolicyAlways)}))
	}
	if spec.Template.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("template", "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"))
	}
	return allErrs
}

// statefulSetUpdateStrategy and statefulSetRollingUpdate are the internal apps shapes of the
// strategy (partition is an int32 there), for error values.
type statefulSetRollingUpdateInternal struct {
	Partition      int32
	MaxUnavailable *intstr.IntOrString
}

type statefulSetUpdateStrategyInternal struct {
	Type          appsv1.StatefulSetUpdateStrategyType
	RollingUpdate *statefulSetRollingUpdateInternal
}

func statefulSetRollingUpdate(r *appsv1.RollingUpdateStatefulSetStrategy) *statefulSetRollingUpdateInternal {
	if r == nil {
		return nil
	}
	return &statefulSetRollingUpdateInternal{Partition: ptr.Deref(r.Partition, 0), MaxUnavailable: r.MaxUnavailable}
}

func statefulSetUpdateStrategy(s appsv1.StatefulSetUpdateStrategy) statefulSetUpdateStrategyInternal {
	return statefulSetUpdateStrategyInternal{Type: s.Type, RollingUpdate: statefulSetRollingUpdate(s.RollingUpdate)}
}

func validateRollingUpdateStatefulSet(rollingUpdate *appsv1.RollingUpdateStatefulSetStrategy, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	fldPathMaxUn := fldPath.Child("maxUnavailable")
	allErrs = append(allErrs, ValidateNonnegativeField(int64(ptr.Deref(rollingUpdate.Partition, 0)), fldPath.Child("partition"))...)
	if rollingUpdate.MaxUnavailable != nil {
		allErrs = append(allErrs, ValidatePositiveIntOrPercent(*rollingUpdate.MaxUnavailable, fldPathMaxUn)...)
		if getIntOrPercentValue(*rollingUpdate.MaxUnavailable) == 0 {
			// MaxUnavailable cannot be 0.
			allErrs = append(allErrs, field.Invalid(fldPathMaxUn, *rollingUpdate.MaxUnavailable, "cannot be 0"))
		}
		// Validate that MaxUnavailable is not more than 100%.
		allErrs = append(allErrs, IsNotMoreThan100Percent(*rollingUpdate.MaxUnavailable, fldPathMaxUn)...)
	}
	return allErrs
}

func validateStatefulSetStatus(status *appsv1.StatefulSetStatus, fieldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.Replicas), fieldPath.Child("replicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.ReadyReplicas), fieldPath.Child("readyReplicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.CurrentReplicas), fieldPath.Child("currentReplicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.UpdatedReplicas), fieldPath.Child("updatedReplicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.AvailableReplicas), fieldPath.Child("availableReplicas"))...)
	// observedGeneration is an int64 in apps/v1 and a *int64 internally: a zero value there is nil.
	if status.ObservedGeneration != 0 {
		allErrs = append(allErrs, ValidateNonnegativeField(status.ObservedGeneration, fieldPath.Child("observedGeneration"))...)
	}
	if status.CollisionCount != nil {
		allErrs = append(allErrs, ValidateNonnegativeField(int64(*status.CollisionCount), fieldPath.Child("collisionCount"))...)
	}

	msg := "cannot be greater than status.replicas"
	if status.ReadyReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fieldPath.Child("readyReplicas"), status.ReadyReplicas, msg))
	}
	if status.CurrentReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fieldPath.Child("currentReplicas"), status.CurrentReplicas, msg))
	}
	if status.UpdatedReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fieldPath.Child("updatedReplicas"), status.UpdatedReplicas, msg))
	}
	if status.AvailableReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fieldPath.Child("availableReplicas"), status.AvailableReplicas, msg))
	}
	if status.AvailableReplicas > status.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(fieldPath.Child("availableReplicas"), status.AvailableReplicas, "cannot be greater than status.readyReplicas"))
	}
	return allErrs
}
