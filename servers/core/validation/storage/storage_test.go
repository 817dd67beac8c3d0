package storage

import (
	"fmt"
	"testing"

	storagev1 "k8s.io/api/storage/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"StorageClass":          vt.Of(ValidateStorageClass, ValidateStorageClassUpdate),
	"VolumeAttributesClass": vt.Of(ValidateVolumeAttributesClass, ValidateVolumeAttributesClassUpdate),
	"CSIDriver":             vt.Of(ValidateCSIDriver, ValidateCSIDriverUpdate),
	"CSINode":               vt.Of(ValidateCSINode, ValidateCSINodeUpdate),
	"CSIStorageCapacity":    vt.Of(ValidateCSIStorageCapacity, ValidateCSIStorageCapacityUpdate),
	"VolumeAttachment":      vt.Of(ValidateVolumeAttachment, ValidateVolumeAttachmentUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 32, nil) }

func TestAccepted(t *testing.T) {
	for file, kind := range map[string]string{
		"storageclass.json": "StorageClass", "volumeattributesclass.json": "VolumeAttributesClass",
		"csidriver.json": "CSIDriver", "csinode.json": "CSINode", "csistoragecapacity.json": "CSIStorageCapacity",
		"volumeattachment.json": "VolumeAttachment",
	} {
		vt.Accepted(t, file, kinds[kind])
	}
}

func storageClass(t *testing.T, doc string) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{}
	vt.Decode(t, sc, "{metadata: {name: sc, resourceVersion: '1'}, provisioner: example.com/disk, parameters: {type: ssd}}", doc)
	return sc
}

func TestStorageClass(t *testing.T) {
	many := map[string]string{}
	for i := range 513 {
		many[fmt.Sprint(i)] = ""
	}
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"valid", `{reclaimPolicy: Retain, volumeBindingMode: WaitForFirstConsumer, allowedTopologies: [{matchLabelExpressions: [{key: zone, values: [a, b]}]}]}`, nil},
		{"provisioner case does not matter", `{provisioner: Example.com/Disk}`, nil},
		// The declarative rule reports the missing provisioner, after ours.
		{"no provisioner", `{provisioner: "", parameters: {"": x}}`,
			[]string{`parameters: Invalid value: "": field can not be empty.`, "provisioner: Required value"}},
		{"provisioner", `{provisioner: example.com/a/b}`,
			[]string{`provisioner: Invalid value: "example.com/a/b": a valid label key must consist of alphanumeric characters`}},
		{"recycle", `{reclaimPolicy: Recycle}`, []string{`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`}},
		{"binding mode", `{volumeBindingMode: Later}`,
			[]string{`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`}},
		{"topology", `{allowedTopologies: [{matchLabelExpressions: [{key: "bad key", values: [a, a]}, {key: "bad key"}]}]}`, []string{
			`allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"`,
			`allowedTopologies[0].matchLabelExpressions[0].key: Invalid value: "bad key"`,
			"allowedTopologies[0].matchLabelExpressions[1].values: Required value",
			`allowedTopologies[0].matchLabelExpressions[1].key: Invalid value: "bad key"`,
			`allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "bad key"`}},
		{"same term twice", `{allowedTopologies: [{matchLabelExpressions: [{key: zone, values: [a, b]}]}, {matchLabelExpressions: [{key: zone, values: [b, a]}]}]}`,
			[]string{`allowedTopologies[1].matchLabelExpressions: Duplicate value: ""`}},
	} {
		sc := storageClass(t, tc.doc)
		vt.Expect(t, tc.name, vt.Merged(t, sc, nil, ValidateStorageClass(sc)), tc.want...)
	}
	sc := storageClass(t, `{}`)
	sc.Parameters = many
	vt.Expect(t, "too many parameters", ValidateStorageClass(sc), "parameters: Too long: may not be more than 512 bytes")
}

func TestStorageClassUpdate(t *testing.T) {
	old := storageClass(t, `{}`)
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"expansion and mount options may change", `{allowVolumeExpansion: true, mountOptions: [ro]}`, nil},
		// The declarative rules report what may not change.
		{"parameters", `{parameters: {type: hdd}}`, []string{"parameters: Invalid value: null: field is immutable"}},
		{"provisioner", `{provisioner: example.com/other}`, []string{"provisioner: Invalid value: null: field is immutable"}},
		{"policies", `{reclaimPolicy: Retain, volumeBindingMode: WaitForFirstConsumer}`,
			[]string{"reclaimPolicy: Invalid value: null: field is immutable", "volumeBindingMode: Invalid value: null: field is immutable"}},
		{"still checked as new", `{metadata: {name: sc}, volumeBindingMode: Later}`, []string{
			`volumeBindingMode: Unsupported value: "Later"`, "volumeBindingMode: Invalid value: null: field is immutable"}},
	} {
		sc := storageClass(t, tc.doc)
		vt.Expect(t, tc.name, vt.Merged(t, sc, old, ValidateStorageClassUpdate(sc, old)), tc.want...)
	}
}
