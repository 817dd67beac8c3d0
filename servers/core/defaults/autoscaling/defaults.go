package autoscaling

import (
	"cmp"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_HorizontalPodAutoscaler: at least one replica, scaled to keep the pods' CPU at
// 80% of what they request. A behavior, once given, is completed rule by rule with the scaling
// the HPA controller does when there is none.
func SetDefaults_HorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	spec := &hpa.Spec
	fill.Nil(&spec.MinReplicas, 1)
	if len(spec.Metrics) == 0 {
		spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name:   corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
			},
		}}
	}
	if b := spec.Behavior; b != nil {
		b.ScaleUp = completeRules(b.ScaleUp, scaleUp())
		b.ScaleDown = completeRules(b.ScaleDown, scaleDown())
	}
}

// scaleUp is the controller's own scale-up: at once (no stabilization window), by the larger
// of 4 pods or 100% every 15 s.
func scaleUp() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](0),
		SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// scaleDown is the controller's own scale-down: up to 100% every 15 s, after the window set by
// the controller's flag (so none here).
func scaleDown() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
}

// completeRules returns the user's rules with every part they leave out taken from defaults.
func completeRules(user, defaults *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if user == nil {
		return defaults
	}
	rules := *user
	rules.SelectPolicy = cmp.Or(user.SelectPolicy, defaults.SelectPolicy)
	rules.StabilizationWindowSeconds = cmp.Or(user.StabilizationWindowSeconds, defaults.StabilizationWindowSeconds)
	if rules.Policies == nil {
		rules.Policies = defaults.Policies
	}
	return &rules
}
