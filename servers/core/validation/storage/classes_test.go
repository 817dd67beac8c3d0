package storage

import (
	"fmt"
	"testing"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

const vac = `{metadata: {name: gold, resourceVersion: "1"}, driverName: csi.example.com, parameters: {iops: "3000"}}`

func TestVolumeAttributesClass(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"driver in capitals", `{driverName: CSI.Example.com}`, nil},
		{"no driver", `{driverName: ""}`, []string{"driverName: Required value"}},
		{"driver", `{driverName: "a/b/c"}`, []string{`driverName: Invalid value: "a/b/c": a valid label key must consist of`}},
		{"no parameters", `{parameters: null}`, []string{"parameters: Required value: must contain at least one key/value pair"}},
		{"empty key", `{parameters: {"": x}}`, []string{`parameters: Invalid value: "": field can not be empty.`}},
	}.Run(t, kinds["VolumeAttributesClass"], vac, nil)
	many := `{parameters: {`
	for i := range 513 {
		many += fmt.Sprintf("p%d: x, ", i)
	}
	vt.Cases{{"too many", many + `}}`, []string{"parameters: Too long: may not be more than 512 bytes"}}}.Run(t, kinds["VolumeAttributesClass"], vac, nil)
}

func TestVolumeAttributesClassUpdate(t *testing.T) {
	old := kinds["VolumeAttributesClass"].New()
	vt.Decode(t, old, vac)
	vt.Cases{
		{"labels may change", `{metadata: {labels: {a: b}}}`, nil},
		{"driver and parameters stay", `{driverName: other.example.com, parameters: {iops: "4000"}}`, []string{
			"driverName: Forbidden: updates to driverName are forbidden.",
			"parameters: Forbidden: updates to parameters are forbidden."}},
	}.Run(t, kinds["VolumeAttributesClass"], vac, old)
}

const capacity = `{metadata: {name: c, namespace: ns, resourceVersion: "1"}, storageClassName: sc, capacity: 10Gi, nodeTopology: {matchLabels: {zone: a}}}`

func TestCSIStorageCapacity(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"a negative largest volume is the driver's business", `{maximumVolumeSize: -1Gi}`, nil},
		{"class", `{storageClassName: ""}`, []string{`storageClassName: Invalid value: "": a lowercase RFC 1123 subdomain`}},
		{"capacity", `{capacity: -1Gi}`, []string{`capacity: Invalid value: "-1Gi": must be greater than or equal to 0`}},
		{"topology", `{nodeTopology: {matchExpressions: [{key: zone, operator: Like, values: [a]}]}}`,
			[]string{`nodeTopology.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator`}},
	}.Run(t, kinds["CSIStorageCapacity"], capacity, nil)
}

func TestCSIStorageCapacityUpdate(t *testing.T) {
	old := kinds["CSIStorageCapacity"].New()
	vt.Decode(t, old, capacity)
	vt.Cases{
		{"capacities may change", `{capacity: 20Gi, maximumVolumeSize: 5Gi}`, nil},
		{"topology and class stay", `{storageClassName: other, nodeTopology: {matchLabels: {zone: b}}}`, []string{
			`nodeTopology: Invalid value: {"matchLabels":{"zone":"b"}}: field is immutable`,
			`storageClassName: Invalid value: "other": field is immutable`}},
	}.Run(t, kinds["CSIStorageCapacity"], capacity, old)
}
