package defaults

// Defaults that neither the captured reference objects nor the older tests show.

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
)

func TestHPABehaviorIsCompletedRuleByRule(t *testing.T) {
	scheme := newTestScheme(t)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
		Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
			ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60)},
		},
	}}
	scheme.Default(hpa)
	max := autoscalingv2.MaxChangePolicySelect
	want := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptr.To[int32](0), SelectPolicy: &max,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: "Pods", Value: 4, PeriodSeconds: 15}, {Type: "Percent", Value: 100, PeriodSeconds: 15}},
		},
		ScaleDown: &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptr.To[int32](60), SelectPolicy: &max,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: "Percent", Value: 100, PeriodSeconds: 15}},
		},
	}
	if diff := cmp.Diff(want, hpa.Spec.Behavior); diff != "" {
		t.Errorf("behavior (-want +got):\n%s", diff)
	}

	// Without a behavior, none is made up: the controller uses its own.
	bare := &autoscalingv2.HorizontalPodAutoscaler{}
	scheme.Default(bare)
	if bare.Spec.Behavior != nil || *bare.Spec.MinReplicas != 1 || *bare.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("a bare HPA: %+v", bare.Spec)
	}
}

func TestRBACBindingsGetTheirAPIGroups(t *testing.T) {
	scheme := newTestScheme(t)
	rb := &rbacv1.RoleBinding{
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "Group", Name: "devs"}, {Kind: "ServiceAccount", Name: "sa", Namespace: "ns"}},
	}
	scheme.Default(rb)
	got := []string{rb.RoleRef.APIGroup, rb.Subjects[0].APIGroup, rb.Subjects[1].APIGroup, rb.Subjects[2].APIGroup}
	if diff := cmp.Diff([]string{rbacv1.GroupName, rbacv1.GroupName, rbacv1.GroupName, ""}, got); diff != "" {
		t.Errorf("roleRef, user, group, service account apiGroups (-want +got):\n%s", diff)
	}
	crb := &rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}}
	scheme.Default(crb)
	if crb.RoleRef.APIGroup != rbacv1.GroupName {
		t.Errorf("clusterrolebinding roleRef.apiGroup = %q", crb.RoleRef.APIGroup)
	}
}

func TestPodHTTPProbesSpeakHTTP1(t *testing.T) {
	scheme := newTestScheme(t)
	h2 := corev1.HTTPProtocolHTTP2
	probes := func() corev1.Container {
		return corev1.Container{Name: "c", Image: "i",
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{}}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Protocol: &h2}}},
			StartupProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{}}},
		}
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{probes()}}}
	scheme.Default(pod)
	c := pod.Spec.Containers[0]
	if *c.LivenessProbe.HTTPGet.Protocol != corev1.HTTPProtocolHTTP1 || *c.ReadinessProbe.HTTPGet.Protocol != h2 {
		t.Errorf("pod probe protocols: liveness %v, readiness %v", *c.LivenessProbe.HTTPGet.Protocol, *c.ReadinessProbe.HTTPGet.Protocol)
	}
	// Templates keep no protocol: their pods get it when they are created.
	tmpl := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{probes()}}}}
	scheme.Default(tmpl)
	if p := tmpl.Template.Spec.Containers[0].LivenessProbe.HTTPGet.Protocol; p != nil {
		t.Errorf("a template's probe got protocol %v", *p)
	}
}

func TestPodLogsReadBothStreams(t *testing.T) {
	scheme := newTestScheme(t)
	opts := &corev1.PodLogOptions{}
	scheme.Default(opts)
	if opts.Stream == nil || *opts.Stream != corev1.LogStreamAll {
		t.Errorf("stream = %v, want All", opts.Stream)
	}
}

func TestPriorityLevelsKeepAnExplicitZero(t *testing.T) {
	scheme := newTestScheme(t)
	pl := &flowcontrolv1.PriorityLevelConfiguration{Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr.To[int32](0), // v1 lets a level hold no shares: a "jail"
			LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
		},
	}}
	scheme.Default(pl)
	if *pl.Spec.Limited.NominalConcurrencyShares != 0 || *pl.Spec.Limited.LendablePercent != 0 || pl.Spec.Limited.LimitResponse.Queuing != nil {
		t.Errorf("limited level: %+v", pl.Spec.Limited)
	}
	exempt := &flowcontrolv1.PriorityLevelConfiguration{Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementExempt, Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{},
	}}
	scheme.Default(exempt)
	if diff := cmp.Diff(&flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](0), LendablePercent: ptr.To[int32](0)}, exempt.Spec.Exempt); diff != "" {
		t.Errorf("exempt level (-want +got):\n%s", diff)
	}
	fs := &flowcontrolv1.FlowSchema{Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: 42}}
	scheme.Default(fs)
	if fs.Spec.MatchingPrecedence != 42 {
		t.Errorf("an explicit matchingPrecedence became %d", fs.Spec.MatchingPrecedence)
	}
}

func TestCSIDriverKeepsWhatItSays(t *testing.T) {
	scheme := newTestScheme(t)
	d := &storagev1.CSIDriver{Spec: storagev1.CSIDriverSpec{AttachRequired: ptr.To(false),
		VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecycleEphemeral}}}
	scheme.Default(d)
	if *d.Spec.AttachRequired || d.Spec.VolumeLifecycleModes[0] != storagev1.VolumeLifecycleEphemeral || len(d.Spec.VolumeLifecycleModes) != 1 {
		t.Errorf("csidriver spec: %+v", d.Spec)
	}
}
