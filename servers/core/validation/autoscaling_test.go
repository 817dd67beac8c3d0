package validation

// Table tests for autoscaling validation (the Scale and autoscaling/v2 HorizontalPodAutoscalers).
// Cases and messages follow kubernetes v1.37.2 pkg/apis/autoscaling/validation/validation_test.go
// (TestValidateScale, TestValidateBehavior, TestValidateHorizontalPodAutoscaler*), with the
// enforced declarative rules of autoscaling/v2 merged in (withDeclarative).

import (
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestValidateScale(t *testing.T) {
	scale := func(replicas int32) *autoscalingv1.Scale {
		return &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
	}
	expectErrors(t, "valid", ValidateScale(scale(3)), nil)
	expectErrors(t, "zero", ValidateScale(scale(0)), nil)
	// the handwritten error, covered by the declarative minimum of autoscaling/v1 (which the
	// ScaleREST runs and the chain tests see)
	expectErrors(t, "negative", ValidateScale(scale(-1)), []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"})
	bad := scale(1)
	bad.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Fly", APIVersion: "autoscaling/v1"}}
	expectErrors(t, "managed fields", ValidateScale(bad), []string{`metadata.managedFields[0].operation: Unsupported value: "Fly": supported values: "Apply", "Update"`})
}

func hpaWith(mutate func(*autoscalingv2.HorizontalPodAutoscaler)) *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "default", ResourceVersion: "1"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"},
			MinReplicas:    ptr.To[int32](1),
			MaxReplicas:    5,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: v1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
			}}},
		},
	}
	if mutate != nil {
		mutate(h)
	}
	return h
}

func TestValidateHorizontalPodAutoscaler(t *testing.T) {
	cases := []struct {
		name string
		obj  *autoscalingv2.HorizontalPodAutoscaler
		want []string
	}{
		{"valid", hpaWith(nil), nil},
		{"replication controller without group", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "ReplicationController", Name: "rc"}
		}), nil},
		{"max below min", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 0 }), []string{
			"spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
			"spec.maxReplicas: Required value",
		}},
		{"negative min", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr.To[int32](-1) }),
			[]string{"spec.minReplicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"scale to zero needs object metrics", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr.To[int32](0) }),
			[]string{"spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas"}},
		{"target", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "..", Name: ""}
		}), []string{
			`spec.scaleTargetRef.kind: Invalid value: "..": may not be '..'`,
			"spec.scaleTargetRef.name: Required value",
			`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`,
		}},
		{"both utilization and value", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Resource.Target.AverageValue = ptr.To(resource.MustParse("100m"))
		}), []string{"spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization"}},
		{"metric type", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.Metrics[0].Type = "Pods" }), []string{
			"spec.metrics[0].pods: Required value: must populate information for the given metric source",
		}},
		{"two metric sources", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Pods = &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("1"))}}
		}), []string{"spec.metrics[0].pods: Forbidden: must populate the given metric source only"}},
		{"target type", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Resource.Target.Type = "Most"
			h.Spec.Metrics[0].Resource.Target.AverageUtilization = ptr.To[int32](0)
		}), []string{
			`spec.metrics[0].resource.target.type: Invalid value: "Most": must be either Utilization, Value, or AverageValue`,
			"spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
		}},
		{"behavior", hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](3601), SelectPolicy: ptr.To(autoscalingv2.ScalingPolicySelect("incorrect"))},
				ScaleDown: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{{Type: "hm", Value: 0, PeriodSeconds: 1801}},
					Tolerance: ptr.To(resource.MustParse("-1"))},
			}
		}), []string{
			"spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
			`spec.behavior.scaleUp.selectPolicy: Unsupported value: "incorrect": supported values: "Disabled", "Max", "Min"`,
			"spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
			`spec.behavior.scaleDown.policies[0].type: Unsupported value: "hm": supported values: "Percent", "Pods"`,
			"spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
			"spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
			`spec.behavior.scaleDown.tolerance: Invalid value: "-1": must be greater than or equal to 0`,
		}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, withDeclarative(t, tc.obj, nil, ValidateHorizontalPodAutoscaler(tc.obj)), tc.want)
	}

	// On update an unchanged maxReplicas is not checked again (declarative ratcheting), and the
	// apiVersion of an unchanged target is not either.
	old := hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
		h.Spec.ScaleTargetRef.APIVersion = "v1"
	})
	changed := hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
		h.Spec.ScaleTargetRef.APIVersion = "v1"
		h.Spec.MaxReplicas = 6
	})
	expectErrors(t, "unchanged target", withDeclarative(t, changed, old, ValidateHorizontalPodAutoscalerUpdate(changed, old)), nil)
	expectErrors(t, "status", ValidateHorizontalPodAutoscalerStatusUpdate(hpaWith(func(h *autoscalingv2.HorizontalPodAutoscaler) {
		h.Status.DesiredReplicas = -1
	}), hpaWith(nil)), []string{"status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0"})
}
