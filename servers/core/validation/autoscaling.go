package validation

// autoscaling validation, ported from kubernetes v1.37.2
// pkg/apis/autoscaling/validation/validation.go (the Scale and the autoscaling/v2
// HorizontalPodAutoscaler parts), called the way
// pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go and the ScaleREST types call
// them. The internal autoscaling types of upstream have the same fields as autoscaling/v2. The
// errors marked covered are reported by the generated declarative rules (+k8s:beta: Scale
// spec.replicas, HPA minReplicas and maxReplicas).
//
// Feature gates at their v1.37 defaults: HPAScaleToZero (beta, on) lowers the minReplicas bound
// to 0; HPAConfigurableTolerance is GA.

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// MaxPeriodSeconds is the largest allowed scaling policy period (in seconds)
	MaxPeriodSeconds int32 = 1800
	// MaxStabilizationWindowSeconds is the largest allowed stabilization window (in seconds)
	MaxStabilizationWindowSeconds int32 = 3600
)

// ValidateScale validates a Scale and returns an ErrorList with any errors.
func ValidateScale(scale *autoscalingv1.Scale) field.ErrorList {
	allErrs := field.ErrorList{}
	// Only validate managed fields and replicas. Other metadata fields are ignored
	// and discarded by the scale subresource handler.
	allErrs = append(allErrs, metav1validation.ValidateManagedFields(scale.GetManagedFields(), field.NewPath("metadata").Child("managedFields"))...)
	if scale.Spec.Replicas < 0 {
		allErrs = append(allErrs, ValidateNonnegativeField(int64(scale.Spec.Replicas), field.NewPath("spec", "replicas")).MarkCoveredByDeclarative()...)
	}
	return allErrs
}

// ValidateHorizontalPodAutoscalerName can be used to check whether the given autoscaler name is valid.
var ValidateHorizontalPodAutoscalerName = apimachineryvalidation.NameIsDNSSubdomain

// crossVersionObjectReferenceValidationOptions contains the different setting to validate
// CrossVersionObjectReference.
type crossVersionObjectReferenceValidationOptions struct {
	AllowEmptyAPIGroup           bool
	AllowInvalidAPIVersion       bool
	RequiredCoveredByDeclarative bool
}

// horizontalPodAutoscalerSpecValidationOptions contains the different settings for
// HorizontalPodAutoscaler spec validation.
type horizontalPodAutoscalerSpecValidationOptions struct {
	MinReplicasLowerBound           int32
	ScaleTargetRefValidationOptions crossVersionObjectReferenceValidationOptions
	ObjectMetricsValidationOptions  crossVersionObjectReferenceValidationOptions
}

// ValidateHorizontalPodAutoscaler is the HPA strategy's Validate.
func ValidateHorizontalPodAutoscaler(autoscaler *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	opts := hpaValidationOptions(autoscaler, nil)
	allErrs := ValidateObjectMeta(&autoscaler.ObjectMeta, true, ValidateHorizontalPodAutoscalerName, field.NewPath("metadata"))
	return append(allErrs, validateHorizontalPodAutoscalerSpec(autoscaler.Spec, field.NewPath("spec"), opts)...)
}

// ValidateHorizontalPodAutoscalerUpdate is the HPA strategy's ValidateUpdate.
func ValidateHorizontalPodAutoscalerUpdate(newAutoscaler, oldAutoscaler *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	opts := hpaValidationOptions(newAutoscaler, oldAutoscaler)
	allErrs := ValidateObjectMetaUpdate(&newAutoscaler.ObjectMeta, &oldAutoscaler.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateHorizontalPodAutoscalerSpec(newAutoscaler.Spec, field.NewPath("spec"), opts)...)
}

// ValidateHorizontalPodAutoscalerStatusUpdate validates an update to status on a HorizontalPodAutoscaler.
func ValidateHorizontalPodAutoscalerStatusUpdate(newAutoscaler, oldAutoscaler *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newAutoscaler.ObjectMeta, &oldAutoscaler.ObjectMeta, field.NewPath("metadata"))
	status := newAutoscaler.Status
	for i, condition := range status.Conditions {
		if condition.ObservedGeneration != nil {
			allErrs = append(allErrs, ValidateNonnegativeField(*condition.ObservedGeneration, field.NewPath("status").Child("conditions").Index(i).Child("observedGeneration"))...)
		}
	}
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.CurrentReplicas), field.NewPath("status", "currentReplicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.DesiredReplicas), field.NewPath("status", "desiredReplicas"))...)
	return allErrs
}

// hpaValidationOptions is the strategy's validationOptionsForHorizontalPodAutoscaler.
func hpaValidationOptions(newHPA, oldHPA *autoscalingv2.HorizontalPodAutoscaler) horizontalPodAutoscalerSpecValidationOptions {
	opts := horizontalPodAutoscalerSpecValidationOptions{
		MinReplicasLowerBound:           0, // HPAScaleToZero is on
		ScaleTargetRefValidationOptions: crossVersionObjectReferenceValidationOptions{RequiredCoveredByDeclarative: true},
		ObjectMetricsValidationOptions:  crossVersionObjectReferenceValidationOptions{AllowEmptyAPIGroup: true},
	}
	switch {
	case oldHPA != nil && oldHPA.Spec.ScaleTargetRef.APIVersion == newHPA.Spec.ScaleTargetRef.APIVersion && oldHPA.Spec.ScaleTargetRef.Kind == newHPA.Spec.ScaleTargetRef.Kind:
		// skip apiVersion validation on updates that don't change the kind/apiVersion.
		opts.ScaleTargetRefValidationOptions.AllowInvalidAPIVersion = true
	case newHPA.Spec.ScaleTargetRef.Kind == "ReplicationController":
		// allow empty apiVersion for the only scalable type that exists in the core v1 API.
		opts.ScaleTargetRefValidationOptions.AllowEmptyAPIGroup = true
	}
	if oldHPA != nil {
		for _, metric := range oldHPA.Spec.Metrics {
			if metric.Type == autoscalingv2.ObjectMetricSourceType && metric.Object != nil {
				if err := validateAPIVersion(metric.Object.DescribedObject, opts.ObjectMetricsValidationOptions); err != nil {
					// metrics are already invalid.
					opts.ObjectMetricsValidationOptions.AllowInvalidAPIVersion = true
					break
				}
			}
		}
	}
	return opts
}

func validateHorizontalPodAutoscalerSpec(autoscaler autoscalingv2.HorizontalPodAutoscalerSpec, fldPath *field.Path, opts horizontalPodAutoscalerSpecValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}

	if autoscaler.MinReplicas != nil && *autoscaler.MinReplicas < opts.MinReplicasLowerBound {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("minReplicas"), *autoscaler.MinReplicas,
			fmt.Sprintf("must be greater than or equal to %d", opts.MinReplicasLowerBound)).WithOrigin("minimum").MarkCoveredByDeclarative())
	}
	if autoscaler.MaxReplicas == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("maxReplicas"), "must be set and greater than 0").MarkCoveredByDeclarative())
	} else if autoscaler.MaxReplicas < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxReplicas"), autoscaler.MaxReplicas, "must be greater than or equal to 1").WithOrigin("minimum").MarkCoveredByDeclarative())
	}
	if autoscaler.MinReplicas != nil && autoscaler.MaxReplicas < *autoscaler.MinReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxReplicas"), autoscaler.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	if refErrs := validateCrossVersionObjectReference(autoscaler.ScaleTargetRef, fldPath.Child("scaleTargetRef"), opts.ScaleTargetRefValidationOptions); len(refErrs) > 0 {
		allErrs = append(allErrs, refErrs...)
	}
	if refErrs := validateMetrics(autoscaler.Metrics, fldPath.Child("metrics"), autoscaler.MinReplicas, opts.ObjectMetricsValidationOptions); len(refErrs) > 0 {
		allErrs = append(allErrs, refErrs...)
	}
	if refErrs := validateBehavior(autoscaler.Behavior, fldPath.Child("behavior")); len(refErrs) > 0 {
		allErrs = append(allErrs, refErrs...)
	}
	return allErrs
}

func validateCrossVersionObjectReference(ref autoscalingv2.CrossVersionObjectReference, fldPath *field.Path, opts crossVersionObjectReferenceValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(ref.Kind) == 0 {
		err := field.Required(fldPath.Child("kind"), "")
		if opts.RequiredCoveredByDeclarative {
			err = err.MarkCoveredByDeclarative()
		}
		allErrs = append(allErrs, err)
	} else {
		for _, msg := range content.IsPathSegmentName(ref.Kind) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), ref.Kind, msg))
		}
	}

	if len(ref.Name) == 0 {
		err := field.Required(fldPath.Child("name"), "")
		if opts.RequiredCoveredByDeclarative {
			err = err.MarkCoveredByDeclarative()
		}
		allErrs = append(allErrs, err)
	} else {
		for _, msg := range content.IsPathSegmentName(ref.Name) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), ref.Name, msg))
		}
	}
	if err := validateAPIVersion(ref, opts); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, err.Error()))
	}
	return allErrs
}

func validateAPIVersion(ref autoscalingv2.CrossVersionObjectReference, opts crossVersionObjectReferenceValidationOptions) error {
	if opts.AllowInvalidAPIVersion {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return err
	} else if !opts.AllowEmptyAPIGroup && gv.Group == "" {
		return fmt.Errorf("apiVersion must specify API group")
	}
	return nil
}
