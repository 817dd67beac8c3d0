package resource

import (
	"testing"

	resourcev1 "k8s.io/api/resource/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"DeviceClass":           vt.Of(ValidateDeviceClass, ValidateDeviceClassUpdate),
	"DeviceTaintRule":       vt.Of(ValidateDeviceTaintRule, ValidateDeviceTaintRuleUpdate),
	"ResourceClaim":         vt.Of(ValidateResourceClaim, ValidateResourceClaimUpdate),
	"ResourceClaimTemplate": vt.Of(ValidateResourceClaimTemplate, ValidateResourceClaimTemplateUpdate),
	"ResourceSlice":         vt.Of(ValidateResourceSlice, ValidateResourceSliceUpdate),
}

// TestCorpus: the admin-access case needs the claim's namespace, which the registry reads.
func TestCorpus(t *testing.T) {
	vt.Corpus(t, kinds, 28, map[string]string{
		"ResourceClaim/admin-access-unlabelled-namespace": "the namespace's label is the registry's to check",
	})
}

func TestAccepted(t *testing.T) {
	for file, kind := range map[string]string{"deviceclass.json": "DeviceClass", "devicetaintrule.json": "DeviceTaintRule",
		"resourceclaim.json": "ResourceClaim", "resourceclaimtemplate.json": "ResourceClaimTemplate", "resourceslice.json": "ResourceSlice"} {
		vt.Accepted(t, file, kinds[kind])
	}
}

const (
	claimBase = `{metadata: {name: c, namespace: ns, resourceVersion: "1"}, spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: dc}}]}}}`
	sliceBase = `{metadata: {name: s, resourceVersion: "1"}, spec: {driver: gpu.example.com, nodeName: n1, pool: {name: p, generation: 1, resourceSliceCount: 1},
		devices: [{name: d0, attributes: {model: {string: a100}}, capacity: {memory: {value: 40Gi}}}]}}`
)

func TestResourceClaim(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"both kinds of request", `{spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: dc}, firstAvailable: [{name: a, deviceClassName: dc}]}]}}}`,
			[]string{"spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"}},
		{"no class", `{spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: ""}}]}}}`,
			[]string{"spec.devices.requests[0].exactly.deviceClassName: Required value"}},
		// An alternative's class is the generated rule's to report (after ours).
		{"an alternative's class", `{spec: {devices: {requests: [{name: gpu, firstAvailable: [{name: A, deviceClassName: Bad_Class}]}]}}}`,
			[]string{`spec.devices.requests[0].firstAvailable[0].name: Invalid value: "A": a lowercase RFC 1123 label`,
				`spec.devices.requests[0].firstAvailable[0].deviceClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain`}},
		// So is a repeated name: the generated error shows the whole request.
		{"repeated request", `{spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: dc}}, {name: gpu, exactly: {deviceClassName: dc}}]}}}`,
			[]string{`spec.devices.requests[1]: Duplicate value: {"name":"gpu","exactly":{`}},
		{"selector not bool", `{spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: dc, selectors: [{cel: {expression: "1"}}]}}]}}}`,
			[]string{`spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "1": must evaluate to bool or the unknown type, not int`}},
		{"selector without cel", `{spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: dc, selectors: [{}]}}]}}}`,
			[]string{"spec.devices.requests[0].exactly.selectors[0].cel: Required value"}},
		{"toleration", `{spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: dc, tolerations: [{key: k, operator: Exists, value: v}]}}]}}}`,
			[]string{`spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "v": must be empty for operator ` + "`Exists`"}},
		{"constraint without attribute", `{spec: {devices: {constraints: [{requests: [gpu]}]}}}`,
			[]string{`spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set`}},
		{"constraint on an alternative", `{spec: {devices: {requests: [{name: gpu, firstAvailable: [{name: big, deviceClassName: dc}]}],
			constraints: [{requests: [gpu/big, gpu/small], matchAttribute: gpu.example.com/model}]}}}`,
			[]string{`spec.devices.constraints[0].requests[1]: Invalid value: "gpu/small": must be the name of a request in the claim`}},
		{"config without parameters", `{spec: {devices: {config: [{requests: [gpu], opaque: {driver: gpu.example.com}}]}}}`,
			[]string{"spec.devices.config[0].opaque.parameters: Required value"}},
		{"config not JSON", `{spec: {devices: {config: [{opaque: {driver: gpu.example.com, parameters: {a: 1}}}]}}}`, nil},
	}.Run(t, kinds["ResourceClaim"], claimBase, nil)
}

func TestResourceClaimUpdate(t *testing.T) {
	old := &resourcev1.ResourceClaim{}
	vt.Decode(t, old, claimBase)
	vt.Cases{
		{"labels change", `{metadata: {labels: {a: b}}}`, nil},
		{"spec changes", `{spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: other}}]}}}`,
			[]string{"spec: Invalid value: null: field is immutable"}},
	}.Run(t, kinds["ResourceClaim"], claimBase, old)
}

func TestResourceClaimStatus(t *testing.T) {
	allocated := `{status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: p, device: d0}]}}}}`
	old := func(docs ...string) *resourcev1.ResourceClaim {
		c := &resourcev1.ResourceClaim{}
		vt.Decode(t, c, append([]string{claimBase}, docs...)...)
		return c
	}
	for _, tc := range []struct {
		name, was, doc string
		want           []string
	}{
		{"allocated", `{}`, allocated, nil},
		{"in use", allocated, `{status: {reservedFor: [{resource: pods, name: p, uid: u1}]}}`, nil},
		{"in use, not allocated", `{}`, `{status: {reservedFor: [{resource: pods, name: p, uid: u1}]}}`,
			[]string{"status.reservedFor: Forbidden: may not be specified when `allocated` is not set"}},
		{"unknown request", `{}`, `{status: {allocation: {devices: {results: [{request: cpu, driver: gpu.example.com, pool: p, device: d0}]}}}}`,
			[]string{`status.allocation.devices.results[0].request: Invalid value: "cpu": must be the name of a request in the claim`}},
		{"allocation changes", allocated, `{status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: p, device: d1}]}}}}`,
			[]string{"status.allocation: Invalid value: "}},
		{"status of a device not allocated", allocated, `{status: {devices: [{driver: gpu.example.com, pool: p, device: d9}]}}`,
			[]string{`status.devices[0]: Invalid value: "gpu.example.com/p/d9": must be an allocated device in the claim`}},
		{"network data", allocated, `{status: {devices: [{driver: gpu.example.com, pool: p, device: d0, networkData: {ips: [10.1.2.3/24, 10.1.2.3]}}]}}`,
			[]string{`status.devices[0].networkData.ips[1]: Invalid value: "10.1.2.3": must be a valid address in CIDR form`}},
	} {
		was, c := old(tc.was), old(tc.was, tc.doc)
		vt.Expect(t, tc.name, vt.Merged(t, c, was, ValidateResourceClaimStatusUpdate(c, was)), tc.want...)
	}
}

func TestResourceSlice(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"all nodes", `{spec: {nodeName: null, allNodes: true}}`, nil},
		{"allNodes false", `{spec: {nodeName: null, allNodes: false}}`, []string{
			"spec.allNodes: Invalid value: false: must be either unset or set to true",
			"spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"}},
		{"two node selector terms", `{spec: {nodeName: null, nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists}]}, {matchExpressions: [{key: b, operator: Exists}]}]}}}`,
			[]string{"spec.nodeSelector.nodeSelectorTerms: Invalid value: "}},
		{"pool", `{spec: {pool: {name: a//b, generation: -1, resourceSliceCount: 0}}}`, []string{
			`spec.pool.name: Invalid value: "": a lowercase RFC 1123 subdomain`,
			"spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
			"spec.pool.generation: Invalid value: -1: must be greater than or equal to zero"}},
		{"repeated device", `{spec: {devices: [{name: d0}, {name: d0}]}}`, []string{`spec.devices[1]: Duplicate value: "d0"`}},
		{"device without value", `{spec: {devices: [{name: d0, attributes: {model: {}}}]}}`,
			[]string{`spec.devices[0].attributes[model]: Invalid value: "": must specify one of:`}},
		{"bad version", `{spec: {devices: [{name: d0, attributes: {fw: {version: "1.2"}}}]}}`,
			[]string{`spec.devices[0].attributes[fw].version: Invalid value: "1.2": must be a string compatible with semver.org spec 2.0.0`}},
		{"bad attribute name", `{spec: {devices: [{name: d0, attributes: {"a/b/c": {int: 1}, "x_y": {int: 2}}}]}}`, []string{
			`spec.devices[0].attributes: Invalid value: "b/c": a valid C identifier`}},
		{"device nodes without per-device selection", `{spec: {devices: [{name: d0, nodeName: n1}]}}`,
			[]string{"spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set"}},
		{"per-device selection", `{spec: {nodeName: null, perDeviceNodeSelection: true, devices: [{name: d0, allNodes: true}, {name: d1}]}}`,
			[]string{"spec.devices[1]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required"}},
		{"taint", `{spec: {devices: [{name: d0, taints: [{key: "bad key", effect: PreferNoSchedule}]}]}}`, []string{
			`spec.devices[0].taints[0].key: Invalid value: "bad key"`,
			`spec.devices[0].taints[0].effect: Unsupported value: "PreferNoSchedule"`}},
		{"binding conditions", `{spec: {devices: [{name: d0, bindingConditions: [ready, ready], bindingFailureConditions: [ready]}]}}`, []string{
			`spec.devices[0].bindingConditions[1]: Duplicate value: "ready"`,
			`spec.devices[0].bindingFailureConditions[0]: Invalid value: "ready": bindingFailureConditions must not overlap with bindingConditions`}},
		{"request policy on a device for one claim", `{spec: {devices: [{name: d0, capacity: {memory: {value: 8Gi, requestPolicy: {default: 1Gi, validValues: [1Gi]}}}}]}}`,
			[]string{"spec.devices[0].capacity[memory].requestPolicy: Forbidden: allowMultipleAllocations must be true"}},
		{"request policy", `{spec: {devices: [{name: d0, allowMultipleAllocations: true, capacity: {memory: {value: 8Gi,
			requestPolicy: {default: 3Gi, validRange: {min: 1Gi, max: 16Gi, step: 2Gi}}}}}]}}`, []string{
			`spec.devices[0].capacity[memory].requestPolicy.validRange.max: Invalid value: "16Gi": max is larger than capacity value: 8Gi`,
			`spec.devices[0].capacity[memory].requestPolicy.validRange.step: Invalid value: "16Gi": value is not a multiple of a given step (2Gi) from (1Gi)`}},
		{"counters and devices", `{spec: {sharedCounters: [{name: gpu, counters: {mem: {value: 1Gi}}}]}}`,
			[]string{"spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed"}},
	}.Run(t, kinds["ResourceSlice"], sliceBase, nil)
}

func TestResourceSliceUpdate(t *testing.T) {
	old := &resourcev1.ResourceSlice{}
	vt.Decode(t, old, sliceBase)
	vt.Cases{
		{"more devices", `{spec: {devices: [{name: d0}, {name: d1}], pool: {generation: 2}}}`, nil},
		{"pool and node", `{spec: {pool: {name: q}, nodeName: n2}}`, []string{
			`spec.pool.name: Invalid value: "q": field is immutable`, `spec.nodeName: Invalid value: "n2": field is immutable`}},
	}.Run(t, kinds["ResourceSlice"], sliceBase, old)
}

func TestDeviceClassAndTaintRule(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"extended resource name", `{spec: {extendedResourceName: example.com/gpu}}`, nil},
		{"config without opaque", `{spec: {config: [{}]}}`, []string{"spec.config[0].opaque: Required value"}},
		{"driver of a config", `{spec: {config: [{opaque: {driver: "", parameters: {}}}]}}`, []string{"spec.config[0].opaque.driver: Required value"}},
	}.Run(t, kinds["DeviceClass"], `{metadata: {name: dc, resourceVersion: "1"}, spec: {selectors: [{cel: {expression: "true"}}]}}`, nil)

	rule := `{metadata: {name: r, resourceVersion: "1"}, spec: {deviceSelector: {driver: gpu.example.com}, taint: {key: example.com/broken, effect: NoSchedule}}}`
	vt.Cases{
		{"valid", `{}`, nil},
		{"selector", `{spec: {deviceSelector: {pool: "a/", device: D0}}}`, []string{
			`spec.deviceSelector.pool: Invalid value: "": a lowercase RFC 1123 subdomain`,
			`spec.deviceSelector.device: Invalid value: "D0": a lowercase RFC 1123 label`}},
		{"value", `{spec: {taint: {value: "not a value!"}}}`, []string{`spec.taint.value: Invalid value: "not a value!"`}},
	}.Run(t, kinds["DeviceTaintRule"], rule, nil)

	// The status: conditions a controller writes.
	old := &resourcev1.DeviceTaintRule{}
	vt.Decode(t, old, rule)
	r := &resourcev1.DeviceTaintRule{}
	vt.Decode(t, r, rule, `{status: {conditions: [{type: EvictionInProgress, status: "True", reason: Evicting, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: x, status: Maybe}]}}`)
	vt.Expect(t, "status", ValidateDeviceTaintRuleStatusUpdate(r, old),
		`status.conditions[1].status: Unsupported value: "Maybe"`, "status.conditions[1].lastTransitionTime: Required value", "status.conditions[1].reason: Required value")
}
