package defaults

// Defaults that neither the captured reference objects nor the older tests show.

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestDeviceTaintsAreDated(t *testing.T) {
	scheme := newTestScheme(t)
	before := time.Now().Truncate(time.Second)
	rule := &resourcev1.DeviceTaintRule{Spec: resourcev1.DeviceTaintRuleSpec{Taint: resourcev1.DeviceTaint{Key: "k", Effect: "NoSchedule"}}}
	scheme.Default(rule)
	if added := rule.Spec.Taint.TimeAdded; added == nil || added.Before(&metav1.Time{Time: before}) || added.Nanosecond() != 0 {
		t.Errorf("timeAdded = %v, want now to the second", added)
	}
	// A date the client gives is kept.
	given := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	rule.Spec.Taint.TimeAdded = &given
	scheme.Default(rule)
	if !rule.Spec.Taint.TimeAdded.Equal(&given) {
		t.Errorf("timeAdded = %v, want the given %v", rule.Spec.Taint.TimeAdded, given)
	}
}

func TestDeviceRequestsCountDevices(t *testing.T) {
	scheme := newTestScheme(t)
	claim := &resourcev1.ResourceClaim{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
		{Name: "all", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "c", AllocationMode: resourcev1.DeviceAllocationModeAll,
			Tolerations: []resourcev1.DeviceToleration{{Key: "k"}}}},
		{Name: "two", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "c", Count: 2}},
		{Name: "alternatives", FirstAvailable: []resourcev1.DeviceSubRequest{{Name: "a", DeviceClassName: "c"}}},
	}}}}
	scheme.Default(claim)
	r := claim.Spec.Devices.Requests
	got := []any{r[0].Exactly.Count, r[0].Exactly.Tolerations[0].Operator, r[1].Exactly.AllocationMode, r[1].Exactly.Count,
		r[2].FirstAvailable[0].AllocationMode, r[2].FirstAvailable[0].Count}
	want := []any{int64(0), resourcev1.DeviceTolerationOpEqual, resourcev1.DeviceAllocationModeExactCount, int64(2),
		resourcev1.DeviceAllocationModeExactCount, int64(1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("All keeps no count, a count is kept, an alternative asks for one device (-want +got):\n%s", diff)
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
