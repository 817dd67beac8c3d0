package validation

// Table tests for Pod update and status update validation. Expectations follow
// kubernetes v1.37.2 pkg/apis/core/validation/validation.go and validation_test.go
// (TestValidatePodUpdate, TestValidatePodStatusUpdate).

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func storedPod(mutate func(*v1.Pod)) *v1.Pod {
	p := validPod()
	p.ResourceVersion = "1"
	if mutate != nil {
		mutate(p)
	}
	testScheme.Default(p)
	return p
}

const updateForbiddenPrefix = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"

func TestValidatePodUpdate(t *testing.T) {
	gated := func(p *v1.Pod) { p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "a"}, {Name: "b"}} }
	toleration := v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](10)}
	cases := []struct {
		name     string
		old, new *v1.Pod
		want     []string // prefixes
	}{
		{"no change", storedPod(nil), storedPod(nil), nil},
		{"image change", storedPod(nil), storedPod(func(p *v1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }), nil},
		{"labels change", storedPod(nil), storedPod(func(p *v1.Pod) { p.Labels = map[string]string{"a": "b"} }), nil},
		{"image removed", storedPod(nil), storedPod(func(p *v1.Pod) { p.Spec.Containers[0].Image = "" }), []string{`spec.containers[0].image: Required value`, `spec.containers[0].image: Required value`}},
		{"container added", storedPod(nil), storedPod(func(p *v1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "d", Image: "x"})
		}), []string{`spec.containers: Forbidden: pod updates may not add or remove containers`}},
		{"port change", storedPod(nil), storedPod(func(p *v1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 90 }), []string{
			updateForbiddenPrefix + "@@ -12,7 +12,7 @@\n",
		}},
		{"restart policy change", storedPod(nil), storedPod(func(p *v1.Pod) { p.Spec.RestartPolicy = v1.RestartPolicyNever }), []string{updateForbiddenPrefix}},
		{"active deadline set", storedPod(nil), storedPod(func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }), nil},
		{"active deadline increase", storedPod(func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }), storedPod(func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](60) }), []string{
			`spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value`,
		}},
		{"active deadline removed", storedPod(func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }), storedPod(nil), []string{
			`spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value`,
		}},
		{"toleration added", storedPod(nil), storedPod(func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{toleration} }), nil},
		{"toleration seconds changed", storedPod(func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{toleration} }), storedPod(func(p *v1.Pod) {
			tol := toleration
			tol.TolerationSeconds = ptr.To[int64](20)
			p.Spec.Tolerations = []v1.Toleration{tol}
		}), nil},
		{"toleration modified", storedPod(func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{toleration} }), storedPod(func(p *v1.Pod) {
			tol := toleration
			tol.Key = "other"
			p.Spec.Tolerations = []v1.Toleration{tol}
		}), []string{`spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds`}},
		{"scheduling gate removed", storedPod(gated), storedPod(func(p *v1.Pod) { p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "a"}} }), nil},
		{"scheduling gate added", storedPod(gated), storedPod(func(p *v1.Pod) {
			p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		}), []string{`spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'c'`}},
		{"gated pod node selector addition", storedPod(gated), storedPod(func(p *v1.Pod) { gated(p); p.Spec.NodeSelector = map[string]string{"zone": "a"} }), nil},
		{"gated pod node selector mutation", storedPod(func(p *v1.Pod) { gated(p); p.Spec.NodeSelector = map[string]string{"zone": "a"} }), storedPod(func(p *v1.Pod) {
			gated(p)
			p.Spec.NodeSelector = map[string]string{"zone": "b"}
		}), []string{`spec.nodeSelector: Invalid value: {"zone":"b"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)`}},
		{"node selector on scheduled pod", storedPod(nil), storedPod(func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} }), []string{updateForbiddenPrefix}},
		{"negative grace period may become 1", storedPod(func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-1) }), storedPod(func(p *v1.Pod) {
			p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
		}), nil},
		{"mirror pod annotation added", storedPod(nil), storedPod(func(p *v1.Pod) {
			p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "x"}
			p.Spec.NodeName = "n1"
		}), []string{`metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation`, updateForbiddenPrefix}},
	}
	for _, tc := range cases {
		// Upstream defaulting turns a negative grace period into 1 on every
		// decode; reset it on the stored object to exercise the update rule.
		if tc.name == "negative grace period may become 1" {
			tc.old.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-1)
		}
		expectErrorPrefixes(t, tc.name, ValidatePodUpdate(tc.new, tc.old), tc.want)
	}

	// The forbidden-update message carries a diff of the (internal-shaped) spec.
	errs := ValidatePodUpdate(storedPod(func(p *v1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 90 }), storedPod(nil))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "-     \"ContainerPort\": 80,\n+     \"ContainerPort\": 90,") {
		t.Errorf("unexpected diff: %v", errs)
	}
}

func TestValidatePodStatusUpdate(t *testing.T) {
	running := func(p *v1.Pod) {
		p.Spec.NodeName = "n1"
		p.Status.Phase = v1.PodRunning
		p.Status.QOSClass = v1.PodQOSBurstable
	}
	terminated := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0}}
	failed := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1}}
	runningState := v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	cases := []struct {
		name     string
		old, new *v1.Pod
		want     []string
	}{
		{"valid", storedPod(running), storedPod(func(p *v1.Pod) {
			running(p)
			p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}, {Type: "example.com/ready", Status: v1.ConditionTrue}}
			p.Status.PodIP = "10.0.0.5"
			p.Status.PodIPs = []v1.PodIP{{IP: "10.0.0.5"}, {IP: "fd00::5"}}
			p.Status.HostIP = "192.168.0.1"
			p.Status.HostIPs = []v1.HostIP{{IP: "192.168.0.1"}}
		}), nil},
		{"node name change", storedPod(running), storedPod(func(p *v1.Pod) { running(p); p.Spec.NodeName = "n2" }), []string{
			`status.nodeName: Forbidden: may not be changed directly`,
		}},
		{"qos class change", storedPod(running), storedPod(func(p *v1.Pod) { running(p); p.Status.QOSClass = v1.PodQOSGuaranteed }), []string{
			`status.qosClass: Invalid value: "Guaranteed": field is immutable`,
		}},
		{"bad condition type and generation", storedPod(running), storedPod(func(p *v1.Pod) {
			running(p)
			p.Status.Conditions = []v1.PodCondition{{Type: "bad type", ObservedGeneration: -1}}
		}), []string{
			`status.conditions[0].observedGeneration: Invalid value: -1: must be a non-negative integer`,
			`status.conditions[0].Type: Invalid value: "bad type": name part must consist of alphanumeric characters`,
		}},
		{"nominated node on bound pod", storedPod(running), storedPod(func(p *v1.Pod) { running(p); p.Status.NominatedNodeName = "n2" }), []string{
			`status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node`,
		}},
		{"pod IPs", storedPod(running), storedPod(func(p *v1.Pod) {
			running(p)
			p.Status.PodIP = "10.0.0.5"
			p.Status.PodIPs = []v1.PodIP{{IP: "10.0.0.5"}, {IP: "10.0.0.6"}}
		}), []string{`status.podIPs: Invalid value: [{"IP":"10.0.0.5"},{"IP":"10.0.0.6"}]: may specify no more than one IP for each IP family`}},
		{"podIP must match podIPs", storedPod(running), storedPod(func(p *v1.Pod) {
			running(p)
			p.Status.PodIP = "10.0.0.5"
			p.Status.PodIPs = []v1.PodIP{{IP: "10.0.0.6"}}
		}), nil}, // SetDefaults_PodStatus makes podIPs follow podIP before validation
		{"terminated container may not restart with restartPolicy Never", storedPod(func(p *v1.Pod) {
			running(p)
			p.Spec.RestartPolicy = v1.RestartPolicyNever
			p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: terminated}}
		}), storedPod(func(p *v1.Pod) {
			running(p)
			p.Spec.RestartPolicy = v1.RestartPolicyNever
			p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: runningState}}
		}), []string{`status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state`}},
		{"failed container may restart with restartPolicy OnFailure", storedPod(func(p *v1.Pod) {
			running(p)
			p.Spec.RestartPolicy = v1.RestartPolicyOnFailure
			p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: failed}}
		}), storedPod(func(p *v1.Pod) {
			running(p)
			p.Spec.RestartPolicy = v1.RestartPolicyOnFailure
			p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: runningState}}
		}), nil},
		{"resource claim status", storedPod(running), storedPod(func(p *v1.Pod) {
			running(p)
			p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "unknown"}}
		}), []string{"status.resourceClaimStatuses[0].name: Invalid value: \"unknown\": must match the name of an entry in `spec.resourceClaims`"}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidatePodStatusUpdate(tc.new, tc.old), tc.want)
	}
	_ = metav1.Now
}
