package core

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestResourceQuota(t *testing.T) {
	quota := func(spec string) *corev1.ResourceQuota {
		q := &corev1.ResourceQuota{}
		validationtest.Decode(t, q, `{metadata: {name: rq, namespace: ns, resourceVersion: "1"}, spec: `+spec+`}`)
		return q
	}
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{
		{"valid", `{hard: {pods: "10", requests.cpu: "4", requests.hugepages-2Mi: 1Gi, example.com/gpu: "2", count/deployments.apps: "3"}}`, nil},
		{"names and amounts", `{hard: {pods: "1.5", memory: "-1", bad/name/x: "1", widgets: "1", storage: 1Gi}}`, []string{
			`spec.hard[bad/name/x]: Invalid value: "bad/name/x": a valid label key must consist of`,
			`spec.hard[memory]: Invalid value: "-1": must be greater than or equal to 0`,
			`spec.hard[pods]: Invalid value: "1500m": must be an integer`,
			`spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota`,
			`spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified`,
			`spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota`,
		}},
		{"scopes", `{hard: {pods: "1", services: "1"}, scopes: [Sometimes, BestEffort, NotBestEffort]}`, []string{
			`spec.scopes: Invalid value: ["Sometimes","BestEffort","NotBestEffort"]: unsupported scope`,
			`spec.scopes: Invalid value: ["Sometimes","BestEffort","NotBestEffort"]: unsupported scope applied to resource`,
			`spec.scopes: Invalid value: ["Sometimes","BestEffort","NotBestEffort"]: unsupported scope applied to resource`,
			`spec.scopes: Invalid value: ["Sometimes","BestEffort","NotBestEffort"]: conflicting scopes`,
		}},
		{"scope selector", `{hard: {pods: "1"}, scopeSelector: {matchExpressions: [
			{scopeName: PriorityClass, operator: In},
			{scopeName: BestEffort, operator: In, values: [x]},
			{scopeName: Terminating, operator: Exists, values: [x]},
			{scopeName: NotTerminating, operator: Maybe}]}}`, []string{
			"spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
			`spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be 'Exists' when scope is any of`,
			`spec.scopeSelector.matchExpressions.values: Invalid value: ["x"]: must be no value when`,
			`spec.scopeSelector.matchExpressions.operator: Invalid value: "Maybe": must be 'Exists' when scope is any of`,
			`spec.scopeSelector.matchExpressions.operator: Invalid value: "Maybe": not a valid selector operator`,
			"spec.scopeSelector.matchExpressions: Invalid value: null: conflicting scopes",
		}},
	} {
		validationtest.Expect(t, tc.name, ValidateResourceQuota(quota(tc.spec)), tc.want...)
	}

	old := quota(`{hard: {pods: "1"}, scopes: [Terminating, BestEffort]}`)
	validationtest.Expect(t, "scopes in another order", ValidateResourceQuotaUpdate(quota(`{hard: {pods: "2"}, scopes: [BestEffort, Terminating]}`), old))
	validationtest.Expect(t, "other scopes", ValidateResourceQuotaUpdate(quota(`{hard: {pods: "2"}, scopes: [BestEffort]}`), old),
		`spec.scopes: Invalid value: ["BestEffort"]: field is immutable`)
	status := old.DeepCopy()
	status.Status.Used = corev1.ResourceList{"pods": resourceQuantity(t, "-1")}
	status.ResourceVersion = ""
	validationtest.Expect(t, "status", ValidateResourceQuotaStatusUpdate(status, old),
		"metadata.resourceVersion: Invalid value: \"\": must be specified for an update",
		"resourceVersion: Required value",
		`status.used[pods]: Invalid value: "-1": must be greater than or equal to 0`)
}

func TestLimitRange(t *testing.T) {
	lr := func(limits string) *corev1.LimitRange {
		l := &corev1.LimitRange{}
		validationtest.Decode(t, l, `{metadata: {name: lr, namespace: ns}, spec: {limits: `+limits+`}}`)
		return l
	}
	for _, tc := range []struct {
		name, limits string
		want         []string
	}{
		{"valid", `[{type: Container, min: {cpu: 100m}, defaultRequest: {cpu: 200m}, default: {cpu: 500m}, max: {cpu: "1"}, maxLimitRequestRatio: {cpu: "5"}},
			{type: Pod, max: {memory: 1Gi}}, {type: PersistentVolumeClaim, min: {storage: 1Gi}}, {type: example.com/mine, max: {example.com/x: "1"}}]`, nil},
		{"types", `[{type: Cluster}, {type: Pod}, {type: Pod}, {type: PersistentVolumeClaim}]`, []string{
			`spec.limits[0].type: Invalid value: "Cluster": must be a standard limit type or fully qualified`,
			`spec.limits[2].type: Duplicate value: "Pod"`,
			"spec.limits[3].limits: Required value: either minimum or maximum storage value is required, but neither was provided",
		}},
		{"names", `[{type: Container, max: {storage: 1Gi, example.com/gpu: "1"}}, {type: Pod, default: {cpu: "1"}, defaultRequest: {cpu: "1"}}]`, []string{
			`spec.limits[0].max[storage]: Invalid value: "storage": must be a standard resource for containers`,
			// A container's default and defaultRequest default to its max.
			`spec.limits[0].default[storage]: Invalid value: "storage": must be a standard resource for containers`,
			`spec.limits[0].defaultRequest[storage]: Invalid value: "storage": must be a standard resource for containers`,
			"spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'",
			"spec.limits[1].defaultRequest: Forbidden: may not be specified when `type` is 'Pod'",
		}},
		{"default over max", `[{type: Container, default: {cpu: 500m}, defaultRequest: {cpu: 250m}, max: {cpu: 100m}}]`, []string{
			`spec.limits[0].defaultRequest[cpu]: Invalid value: "250m": default request value 250m is greater than max value 100m`,
			`spec.limits[0].default[cpu]: Invalid value: "100m": default value 500m is greater than max value 100m`,
		}},
		{"min over everything", `[{type: Container, min: {memory: 2Gi}, max: {memory: 1Gi}, default: {memory: 1Gi}, defaultRequest: {memory: 1Gi}}]`, []string{
			`spec.limits[0].min[memory]: Invalid value: "2Gi": min value 2Gi is greater than max value 1Gi`,
			`spec.limits[0].defaultRequest[memory]: Invalid value: "1Gi": min value 2Gi is greater than default request value 1Gi`,
			`spec.limits[0].default[memory]: Invalid value: "2Gi": min value 2Gi is greater than default value 1Gi`,
		}},
		{"ratios", `[{type: Container, min: {cpu: 100m}, max: {cpu: 200m}, maxLimitRequestRatio: {cpu: "3", memory: 500m}}]`, []string{
			`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000`,
			`spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "500m": ratio 500m is less than 1`,
		}},
		{"devices are not overcommitted", `[{type: Container, default: {example.com/gpu: "2"}, defaultRequest: {example.com/gpu: "1"}}]`, []string{
			`spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: "1": default value 2 must equal to defaultRequest value 1 in example.com/gpu`,
		}},
	} {
		validationtest.Expect(t, tc.name, ValidateLimitRange(lr(tc.limits)), tc.want...)
	}
}

func resourceQuantity(t *testing.T, s string) resource.Quantity {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
