package pods

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// stored is a pod as stored: created, with a resourceVersion and a QoS class.
func stored(t *testing.T, edit func(*corev1.Pod)) *corev1.Pod {
	p := pod(t, edit)
	p.ResourceVersion = "1"
	p.Status.QOSClass = corev1.PodQOSBurstable
	return p
}

const notUpdatable = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`," +
	"`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"

func TestPodUpdate(t *testing.T) {
	gated := func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "a"}, {Name: "b"}} }
	toleration := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](10)}
	tolerating := func(edit func(*corev1.Toleration)) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			tol := toleration
			if edit != nil {
				edit(&tol)
			}
			p.Spec.Tolerations = []corev1.Toleration{tol}
		}
	}
	cases := []struct {
		name      string
		old, edit func(*corev1.Pod)
		want      []string
	}{
		{"no change", nil, nil, nil},
		{"image", nil, func(p *corev1.Pod) { ctr(p).Image = "nginx:1.28" }, nil},
		{"labels", nil, func(p *corev1.Pod) { p.Labels = map[string]string{"a": "b"} }, nil},
		{"image removed", nil, func(p *corev1.Pod) { ctr(p).Image = "" }, []string{`spec.containers[0].image: Required value`}},
		{"container added", nil, func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d", Image: "x"})
		},
			[]string{`spec.containers: Forbidden: pod updates may not add or remove containers`}},
		{"port", nil, func(p *corev1.Pod) { ctr(p).Ports[0].ContainerPort = 90 }, []string{notUpdatable + "@@ -12,7 +12,7 @@\n"}},
		{"restart policy", nil, func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever }, []string{notUpdatable}},
		{"node selector of a scheduled pod", nil, func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} }, []string{notUpdatable}},
		{"deadline set", nil, func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }, nil},
		{"deadline shortened", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](10) }, nil},
		{"deadline extended", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](60) },
			[]string{`spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value`}},
		{"deadline lifted", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = nil },
			[]string{`spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value`}},
		{"toleration added", nil, tolerating(nil), nil},
		{"toleration seconds changed", tolerating(nil), tolerating(func(t *corev1.Toleration) { t.TolerationSeconds = ptr.To[int64](20) }), nil},
		{"toleration changed", tolerating(nil), tolerating(func(t *corev1.Toleration) { t.Key = "other" }),
			[]string{`spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds`}},
		{"scheduling gate removed", gated, func(p *corev1.Pod) { p.Spec.SchedulingGates = p.Spec.SchedulingGates[:1] }, nil},
		{"scheduling gate added", gated, func(p *corev1.Pod) {
			p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: "c"})
		}, []string{`spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'c'`}},
		{"gated: node selector added to", gated, func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} }, nil},
		{"gated: node selector changed", func(p *corev1.Pod) { gated(p); p.Spec.NodeSelector = map[string]string{"zone": "a"} },
			func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "b"} },
			[]string{`spec.nodeSelector: Invalid value: {"zone":"b"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)`}},
		{"gated: node affinity set", gated, func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpExists}}}}}}}
		}, nil},
		{"mirror pod annotation added", nil, func(p *corev1.Pod) {
			p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
			p.Spec.NodeName = "n1"
		}, []string{`metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation`, notUpdatable}},
		{"ephemeral containers added", nil, func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}}
		}, []string{notUpdatable}},
	}
	for _, tc := range cases {
		old := stored(t, tc.old)
		updated := old.DeepCopy()
		if tc.edit != nil {
			tc.edit(updated)
			validationtest.Scheme.Default(updated)
		}
		validationtest.Expect(t, tc.name, ValidatePodUpdate(updated, old), tc.want...)
	}

	// The message shows what else changed, in the field names of kube-apiserver's internal type.
	old := stored(t, nil)
	updated := old.DeepCopy()
	ctr(updated).Ports[0].ContainerPort = 90
	if errs := ValidatePodUpdate(updated, old); len(errs) != 1 || !strings.Contains(errs[0].Error(), "-     \"ContainerPort\": 80,\n+     \"ContainerPort\": 90,") {
		t.Errorf("the diff of a port change: %v", errs)
	}
	// A negative grace period (stored before defaulting turned it into 1) may become 1.
	old = stored(t, nil)
	old.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-1)
	updated = old.DeepCopy()
	updated.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
	validationtest.Expect(t, "negative grace period becomes 1", ValidatePodUpdate(updated, old))
}

func TestPodStatusUpdate(t *testing.T) {
	running := func(p *corev1.Pod) {
		p.Spec.NodeName = "n1"
		p.Status.Phase = corev1.PodRunning
	}
	terminated := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}
	failed := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}
	alive := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	withState := func(policy corev1.RestartPolicy, state corev1.ContainerState) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			running(p)
			p.Spec.RestartPolicy = policy
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: state}}
		}
	}
	cases := []struct {
		name      string
		old, edit func(*corev1.Pod)
		want      []string
	}{
		{"valid", running, func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}, {Type: "example.com/ready", Status: corev1.ConditionTrue}}
			p.Status.PodIP = "10.0.0.5"
			p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.5"}, {IP: "fd00::5"}}
			p.Status.HostIP = "192.168.0.1"
			p.Status.HostIPs = []corev1.HostIP{{IP: "192.168.0.1"}}
		}, nil},
		{"node name", running, func(p *corev1.Pod) { p.Spec.NodeName = "n2" }, []string{`status.nodeName: Forbidden: may not be changed directly`}},
		{"qos class", running, func(p *corev1.Pod) { p.Status.QOSClass = corev1.PodQOSGuaranteed },
			[]string{`status.qosClass: Invalid value: "Guaranteed": field is immutable`}},
		{"condition", running, func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: "bad type", ObservedGeneration: -1}}
		}, []string{
			`status.conditions[0].observedGeneration: Invalid value: -1: must be a non-negative integer`,
			`status.conditions[0].Type: Invalid value: "bad type": name part must consist of alphanumeric characters`,
		}},
		{"nominated node of a bound pod", running, func(p *corev1.Pod) { p.Status.NominatedNodeName = "n2" },
			[]string{`status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node`}},
		{"pod IPs", running, func(p *corev1.Pod) {
			p.Status.PodIP = "10.0.0.5"
			p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.5"}, {IP: "10.0.0.6"}, {IP: "nope"}}
		}, []string{
			`status.podIPs[2].ip: Invalid value: "nope": must be a valid IP address`,
			`status.podIPs: Invalid value: [{"IP":"10.0.0.5"},{"IP":"10.0.0.6"},{"IP":"nope"}]: may specify no more than one IP for each IP family`,
		}},
		{"pod IP is the first of the pod IPs", running, func(p *corev1.Pod) {
			p.Status.PodIP = "10.0.0.5"
			p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.6"}}
		}, []string{"status.podIPs[0].ip: Invalid value: \"10.0.0.6\": must be equal to `podIP`"}},
		{"restartPolicy Never: terminated stays terminated", withState(corev1.RestartPolicyNever, terminated), withState(corev1.RestartPolicyNever, alive),
			[]string{`status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state`}},
		{"restartPolicy OnFailure: a failed container restarts", withState(corev1.RestartPolicyOnFailure, failed), withState(corev1.RestartPolicyOnFailure, alive), nil},
		{"restartPolicy OnFailure: a finished container stays", withState(corev1.RestartPolicyOnFailure, terminated), withState(corev1.RestartPolicyOnFailure, alive),
			[]string{`status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state`}},
		{"resource claim status", running, func(p *corev1.Pod) {
			p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "unknown"}}
		},
			[]string{"status.resourceClaimStatuses[0].name: Invalid value: \"unknown\": must match the name of an entry in `spec.resourceClaims`"}},
	}
	for _, tc := range cases {
		old := stored(t, tc.old)
		updated := old.DeepCopy()
		tc.edit(updated)
		validationtest.Expect(t, tc.name, ValidatePodStatusUpdate(updated, old), tc.want...)
	}
}
