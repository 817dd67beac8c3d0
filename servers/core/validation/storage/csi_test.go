package storage

import (
	"strings"
	"testing"

	storagev1 "k8s.io/api/storage/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

const csiDriver = `{metadata: {name: csi.example.com, resourceVersion: "1"}, spec: {}}`

func TestCSIDriver(t *testing.T) {
	vt.Cases{
		{"defaults are valid", `{}`, nil},
		{"fsGroupPolicy", `{spec: {fsGroupPolicy: Always}}`,
			[]string{`spec.fsGroupPolicy: Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"`}},
		{"modes, reported on the list", `{spec: {volumeLifecycleModes: [Persistent, Temporary]}}`,
			[]string{`spec.volumeLifecycleModes: Unsupported value: "Temporary": supported values: "Persistent", "Ephemeral"`}},
		{"token requests", `{spec: {tokenRequests: [{audience: a, expirationSeconds: 60}, {audience: a}, {audience: b, expirationSeconds: 5000000000}]}}`, []string{
			"spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
			`spec.tokenRequests[1].audience: Duplicate value: "a"`,
			"spec.tokenRequests[2].expirationSeconds: Invalid value: 5000000000: may not specify a duration larger than 2^32 seconds"}},
		{"allocatable update period", `{spec: {nodeAllocatableUpdatePeriodSeconds: 5}}`,
			[]string{"spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds"}},
	}.Run(t, kinds["CSIDriver"], csiDriver, nil)
	// Nothing defaults a CSIDriver built in Go: every boolean is then missing.
	vt.Expect(t, "undefaulted", ValidateCSIDriver(&storagev1.CSIDriver{}),
		"metadata.name: Required value", "spec.attachedRequired: Required value", "spec.podInfoOnMount: Required value",
		"spec.storageCapacity: Required value", "spec.seLinuxMount: Required value")
}

func TestCSIDriverUpdate(t *testing.T) {
	old := kinds["CSIDriver"].New()
	vt.Decode(t, old, csiDriver)
	vt.Cases{
		{"podInfoOnMount may change", `{spec: {podInfoOnMount: true}}`, nil},
		{"attachRequired, on kube-apiserver's path", `{spec: {attachRequired: false}}`,
			[]string{"spec.attachedRequired: Invalid value: false: field is immutable"}},
		{"modes", `{spec: {volumeLifecycleModes: [Ephemeral]}}`,
			[]string{`spec.volumeLifecycleModes: Invalid value: ["Ephemeral"]: field is immutable`}},
	}.Run(t, kinds["CSIDriver"], csiDriver, old)
}

const csiNode = `{metadata: {name: n1, resourceVersion: "1"}, spec: {drivers: [{name: csi.example.com, nodeID: n1, topologyKeys: [zone], allocatable: {count: 3}}]}}`

func TestCSINode(t *testing.T) {
	long := strings.Repeat("x", 257)
	vt.Cases{
		{"valid", `{}`, nil},
		{"driver", `{spec: {drivers: [{name: "bad_driver", nodeID: "` + long + `"}, {name: "", nodeID: "", allocatable: {count: -1}}]}}`, []string{
			`spec.drivers[0].name: Invalid value: "bad_driver": a lowercase RFC 1123 subdomain`,
			`spec.drivers[0].nodeID: Invalid value: "` + long + `": must be 256 characters or less`,
			"spec.drivers[1].name: Required value",
			"spec.drivers[1].nodeID: Required value",
			"spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to 0"}},
		{"twice", `{spec: {drivers: [{name: a.example.com, nodeID: n1}, {name: a.example.com, nodeID: n1}]}}`,
			[]string{`spec.drivers[1].name: Duplicate value: "a.example.com"`}},
		{"topology keys, on the driver", `{spec: {drivers: [{name: a.example.com, nodeID: n1, topologyKeys: [zone, zone, "bad key", ""]}]}}`, []string{
			`spec.drivers[0]: Duplicate value: "zone"`,
			`spec.drivers[0]: Invalid value: "bad key": name part must consist of`,
			"spec.drivers[0]: Required value",
			`spec.drivers[0]: Invalid value: "": name part must be non-empty`,
			`spec.drivers[0]: Invalid value: "": name part must consist of`}},
	}.Run(t, kinds["CSINode"], csiNode, nil)
}

func TestCSINodeUpdate(t *testing.T) {
	old := kinds["CSINode"].New()
	vt.Decode(t, old, csiNode)
	vt.Cases{
		{"the count may change, drivers come and go", `{spec: {drivers: [{name: csi.example.com, nodeID: n1, topologyKeys: [zone], allocatable: {count: 5}}, {name: b.example.com, nodeID: n1}]}}`, nil},
		{"a driver's node ID stays", `{spec: {drivers: [{name: csi.example.com, nodeID: n2, topologyKeys: [zone]}]}}`,
			[]string{`spec.drivers: Invalid value: {"Name":"csi.example.com","NodeID":"n2","TopologyKeys":["zone"],"Allocatable":null}: field is immutable`}},
	}.Run(t, kinds["CSINode"], csiNode, old)
}

const attachment = `{metadata: {name: va, resourceVersion: "1"}, spec: {attacher: csi.example.com, nodeName: n1, source: {persistentVolumeName: pv}}}`

func TestVolumeAttachment(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"attacher in capitals is a driver name too", `{spec: {attacher: CSI.Example.com}}`, nil},
		// The generated rules report the attacher, with their own messages.
		{"no attacher", `{spec: {attacher: ""}}`, []string{"spec.attacher: Required value"}},
		{"attacher", `{spec: {attacher: "a_b"}}`, []string{`spec.attacher: Invalid value: "a_b": an RFC 1123 subdomain must consist of alphanumeric characters`}},
		{"attacher too long", `{spec: {attacher: ` + strings.Repeat("a", 64) + `}}`, []string{"spec.attacher: Too long: may not be more than 63"}},
		{"no source", `{spec: {source: null}}`, []string{"spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName"}},
		{"empty volume name", `{spec: {source: {persistentVolumeName: ""}}}`,
			[]string{"spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName"}},
		{"volume name", `{spec: {source: {persistentVolumeName: PV}}}`,
			[]string{`spec.source.persistentVolumeName: Invalid value: "PV": a lowercase RFC 1123 subdomain`}},
		{"inline spec", `{spec: {source: {persistentVolumeName: null, inlineVolumeSpec: {capacity: {storage: 1Gi}, hostPath: {path: /x}}}}}`, []string{
			"spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes",
			"spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes",
			"spec.source.inlineVolumeSpec.accessModes: Required value"}},
		{"valid inline spec", `{spec: {source: {persistentVolumeName: null, inlineVolumeSpec: {accessModes: [ReadWriteOnce], csi: {driver: csi.example.com, volumeHandle: h}}}}}`, nil},
		{"node", `{spec: {nodeName: ""}}`, []string{`spec.nodeName: Invalid value: "": a lowercase RFC 1123 subdomain`}},
		{"status", `{status: {attachError: {message: x, errorCode: -1}}}`,
			[]string{"status.attachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive"}},
	}.Run(t, kinds["VolumeAttachment"], attachment, nil)
}

func TestVolumeAttachmentUpdate(t *testing.T) {
	old := kinds["VolumeAttachment"].New()
	vt.Decode(t, old, attachment)
	vt.Cases{
		{"status may change", `{status: {attached: true, attachmentMetadata: {a: b}}}`, nil},
		{"an old attacher name stays acceptable", `{metadata: {labels: {a: b}}}`, nil},
		{"spec stays", `{spec: {nodeName: n2}}`, []string{"spec: Invalid value: null: field is immutable"}},
	}.Run(t, kinds["VolumeAttachment"], attachment, old)
}
