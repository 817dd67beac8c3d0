package autoscaling

import (
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"HorizontalPodAutoscaler": vt.Of(ValidateHorizontalPodAutoscaler, ValidateHorizontalPodAutoscalerUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 8, nil) }

func TestAccepted(t *testing.T) { vt.Accepted(t, "hpa.json", kinds["HorizontalPodAutoscaler"]) }

const hpa = `{metadata: {name: h, namespace: ns, resourceVersion: "1"}, spec: {
	scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}, minReplicas: 1, maxReplicas: 5,
	metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]}}`

func check(t *testing.T, doc string, want ...string) {
	t.Helper()
	h := &autoscalingv2.HorizontalPodAutoscaler{}
	vt.Decode(t, h, hpa, doc)
	vt.Expect(t, doc, vt.Merged(t, h, nil, ValidateHorizontalPodAutoscaler(h)), want...)
}

func TestAutoscaler(t *testing.T) {
	check(t, `{}`)
	check(t, `{spec: {scaleTargetRef: {apiVersion: v1, kind: ReplicationController}}}`)
	check(t, `{spec: {minReplicas: 0, metrics: [{type: External, external: {metric: {name: queue}, target: {type: Value, value: 10}}}]}}`)
	check(t, `{spec: {minReplicas: 0}}`,
		"spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas")
	// The generated rules report the bounds, after ours.
	check(t, `{spec: {minReplicas: -1, maxReplicas: 0}}`,
		"spec.minReplicas: Invalid value: -1: must be greater than or equal to 0", "spec.maxReplicas: Required value")
	check(t, `{spec: {minReplicas: 3, maxReplicas: 2}}`, "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`")
	check(t, `{spec: {scaleTargetRef: {apiVersion: v1, kind: Deployment, name: d}}}`,
		`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`)
	check(t, `{spec: {scaleTargetRef: {apiVersion: a/b/c, kind: "", name: a/b}}}`,
		"spec.scaleTargetRef.kind: Required value",
		`spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`,
		`spec.scaleTargetRef.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`)
}

func TestMetrics(t *testing.T) {
	metric := func(m string) string { return `{spec: {metrics: [` + m + `]}}` }
	check(t, metric(`{type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: 10}}}`))
	check(t, metric(`{type: ContainerResource, containerResource: {name: memory, container: app, target: {type: AverageValue, averageValue: 1Gi}}}`))
	check(t, metric(`{type: Object, object: {describedObject: {apiVersion: v1, kind: Service, name: s}, metric: {name: hits}, target: {type: Value, value: 1}}}`))
	check(t, metric(`{type: Resource, resource: {name: cpu, target: {type: Percent, averageUtilization: 0}}}`),
		`spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue`,
		"spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0")
	check(t, metric(`{type: Resource, resource: {target: {type: AverageValue, averageValue: "0", averageUtilization: 50}}}`),
		"spec.metrics[0].resource.name: Required value: must specify a resource name",
		`spec.metrics[0].resource.target.averageValue: Invalid value: "0": must be positive`,
		"spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization")
	check(t, metric(`{type: Pods, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}`),
		"spec.metrics[0].pods: Required value: must populate information for the given metric source")
	check(t, metric(`{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: 1}}}`),
		"spec.metrics[0].pods: Forbidden: must populate the given metric source only")
	check(t, metric(`{type: Custom}`),
		`spec.metrics[0].type: Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"`)
	check(t, metric(`{type: External, external: {metric: {}, target: {type: Value}}}`),
		"spec.metrics[0].external.metric.name: Required value: must specify a metric name",
		"spec.metrics[0].external.target.averageValue: Required value: must set either a target value for metric or a per-pod target")
	check(t, metric(`{type: ContainerResource, containerResource: {name: pods, target: {type: Utilization, averageUtilization: 50}}}`),
		`spec.metrics[0].containerResource.name: Invalid value: "pods": must be a standard resource for containers`,
		"spec.metrics[0].containerResource.container: Required value: must specify a container")
	check(t, metric(`{type: Object, object: {describedObject: {kind: Service, name: s, apiVersion: a/b/c}, metric: {name: hits}, target: {type: AverageValue}}}`),
		`spec.metrics[0].object.describedObject.apiVersion: Invalid value: "a/b/c"`,
		"spec.metrics[0].object.target.averageValue: Required value: must set either a target value or averageValue")
}

func TestBehavior(t *testing.T) {
	check(t, `{spec: {behavior: {scaleDown: {stabilizationWindowSeconds: 300, selectPolicy: Max, tolerance: "0.1", policies: [{type: Percent, value: 10, periodSeconds: 60}]}}}}`)
	check(t, `{spec: {behavior: {scaleUp: {stabilizationWindowSeconds: 3601, selectPolicy: Fastest, tolerance: "-1", policies: [{type: Nodes, value: 0, periodSeconds: 1801}]}}}}`,
		"spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
		`spec.behavior.scaleUp.selectPolicy: Unsupported value: "Fastest": supported values: "Disabled", "Max", "Min"`,
		`spec.behavior.scaleUp.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"`,
		"spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
		"spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
		`spec.behavior.scaleUp.tolerance: Invalid value: "-1": must be greater than or equal to 0`)
	check(t, `{spec: {behavior: {scaleDown: {stabilizationWindowSeconds: -1}}}}`,
		"spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero")
	check(t, `{spec: {behavior: {scaleDown: {policies: []}}}}`, "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy")
}

func TestUpdates(t *testing.T) {
	old := &autoscalingv2.HorizontalPodAutoscaler{}
	vt.Decode(t, old, hpa, `{spec: {scaleTargetRef: {apiVersion: v1}, metrics: [{type: Object, object: {
		describedObject: {apiVersion: a/b/c, kind: Service, name: s}, metric: {name: hits}, target: {type: Value, value: 1}}}]}}`)
	vt.Expect(t, "stored apiVersions", ValidateHorizontalPodAutoscalerUpdate(old.DeepCopy(), old))
	vt.Expect(t, "new apiVersions", ValidateHorizontalPodAutoscaler(old),
		`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`,
		`spec.metrics[0].object.describedObject.apiVersion: Invalid value: "a/b/c"`)

	status := old.DeepCopy()
	vt.Decode(t, status, `{status: {currentReplicas: -1, desiredReplicas: 2, conditions: [{type: AbleToScale, status: "True", observedGeneration: -1}]}}`)
	vt.Expect(t, "status", ValidateHorizontalPodAutoscalerStatusUpdate(status, old),
		"status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to 0",
		"status.currentReplicas: Invalid value: -1: must be greater than or equal to 0")
}

func TestScale(t *testing.T) {
	s := &autoscalingv1.Scale{}
	vt.Decode(t, s, `{metadata: {name: d, namespace: ns}, spec: {replicas: 3}}`)
	vt.Expect(t, "valid", ValidateScale(s))
	vt.Decode(t, s, `{spec: {replicas: -1}, metadata: {managedFields: [{manager: m, operation: Patch}]}}`)
	vt.Expect(t, "invalid", ValidateScale(s),
		`metadata.managedFields[0].operation: Unsupported value: "Patch": supported values: "Apply", "Update"`,
		"spec.replicas: Invalid value: -1: must be greater than or equal to 0")
}
