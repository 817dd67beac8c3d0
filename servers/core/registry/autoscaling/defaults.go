package autoscaling

// autoscaling/v2 defaulting, ported from kubernetes v1.37.2 pkg/apis/autoscaling/v2/defaults.go
// and zz_generated.defaults.go.

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// defaultCPUUtilization is the default value for CPU utilization, provided no other
// metrics are present (pkg/apis/autoscaling DefaultCPUUtilization).
const defaultCPUUtilization = 80

var (
	// These constants repeats previous HPA behavior
	scaleUpLimitPercent         int32 = 100
	scaleUpLimitMinimumPods     int32 = 4
	scaleUpPeriod               int32 = 15
	scaleUpStabilizationSeconds int32
	maxPolicy                   = autoscalingv2.MaxChangePolicySelect
	defaultHPAScaleUpRules      = autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: &scaleUpStabilizationSeconds,
		SelectPolicy:               &maxPolicy,
		Policies: []autoscalingv2.HPAScalingPolicy{
			{
				Type:          autoscalingv2.PodsScalingPolicy,
				Value:         scaleUpLimitMinimumPods,
				PeriodSeconds: scaleUpPeriod,
			},
			{
				Type:          autoscalingv2.PercentScalingPolicy,
				Value:         scaleUpLimitPercent,
				PeriodSeconds: scaleUpPeriod,
			},
		},
	}
	scaleDownPeriod int32 = 15
	// Currently we can set the downscaleStabilizationWindow from the command line
	// So we can not rewrite the command line option from here
	scaleDownLimitPercent    int32 = 100
	defaultHPAScaleDownRules       = autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: nil,
		SelectPolicy:               &maxPolicy,
		Policies: []autoscalingv2.HPAScalingPolicy{
			{
				Type:          autoscalingv2.PercentScalingPolicy,
				Value:         scaleDownLimitPercent,
				PeriodSeconds: scaleDownPeriod,
			},
		},
	}
)

// registerDefaults is the generated RegisterDefaults of autoscaling/v2.
func registerDefaults(scheme *runtime.Scheme) {
	scheme.AddTypeDefaultingFunc(&autoscalingv2.HorizontalPodAutoscaler{}, func(obj interface{}) {
		setDefaultsHorizontalPodAutoscaler(obj.(*autoscalingv2.HorizontalPodAutoscaler))
	})
	scheme.AddTypeDefaultingFunc(&autoscalingv2.HorizontalPodAutoscalerList{}, func(obj interface{}) {
		list := obj.(*autoscalingv2.HorizontalPodAutoscalerList)
		for i := range list.Items {
			setDefaultsHorizontalPodAutoscaler(&list.Items[i])
		}
	})
}

// setDefaultsHorizontalPodAutoscaler is SetDefaults_HorizontalPodAutoscaler.
func setDefaultsHorizontalPodAutoscaler(obj *autoscalingv2.HorizontalPodAutoscaler) {
	if obj.Spec.MinReplicas == nil {
		obj.Spec.MinReplicas = ptr.To[int32](1)
	}

	if len(obj.Spec.Metrics) == 0 {
		utilizationDefaultVal := int32(defaultCPUUtilization)
		obj.Spec.Metrics = []autoscalingv2.MetricSpec{
			{
				Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{
						Type:               autoscalingv2.UtilizationMetricType,
						AverageUtilization: &utilizationDefaultVal,
					},
				},
			},
		}
	}
	setDefaultsHorizontalPodAutoscalerBehavior(obj)
}

// setDefaultsHorizontalPodAutoscalerBehavior fills the behavior if it contains at least one
// scaling rule policy (for scale-up or scale-down).
func setDefaultsHorizontalPodAutoscalerBehavior(obj *autoscalingv2.HorizontalPodAutoscaler) {
	if obj.Spec.Behavior != nil {
		obj.Spec.Behavior.ScaleUp = copyHPAScalingRules(obj.Spec.Behavior.ScaleUp, defaultHPAScaleUpRules.DeepCopy())
		obj.Spec.Behavior.ScaleDown = copyHPAScalingRules(obj.Spec.Behavior.ScaleDown, defaultHPAScaleDownRules.DeepCopy())
	}
}

// copyHPAScalingRules copies all non-`nil` fields in HPA constraint structure
func copyHPAScalingRules(from, to *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return to
	}
	if from.SelectPolicy != nil {
		to.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		to.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		to.Policies = from.Policies
	}
	if from.Tolerance != nil {
		to.Tolerance = from.Tolerance
	}
	return to
}
