package commands

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/servers/core"
)

// FuzzDecodeStored feeds `chain etcdctl get`'s decoder any stored value: protobuf as Core
// stores built-in objects, JSON as custom resources are stored, or neither. Properties: it
// never panics; a JSON value is printed as the same JSON document; whatever it prints as JSON
// it prints as YAML that reads back to the same document.
func FuzzDecodeStored(f *testing.F) {
	scheme, err := core.NewScheme()
	if err != nil {
		f.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		f.Fatal("no protobuf serializer")
	}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "default", Labels: map[string]string{"a": "b"}},
		Data:       map[string]string{"ca.crt": "-----BEGIN CERTIFICATE-----\n"}}
	var pb bytes.Buffer
	if err := codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion).Encode(cm, &pb); err != nil {
		f.Fatal(err)
	}
	f.Add(pb.Bytes())
	f.Add(pb.Bytes()[:pb.Len()/2])
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"n":1.5,"list":[true,null,"x"]}}`))
	f.Add([]byte("k8s\x00"))
	f.Add([]byte("k8s\x00\x0a\x02v1\x12\x03Foo"))
	f.Add([]byte(`"just a string"`))
	f.Add([]byte(`{"a":"b","a":"c"}`))
	f.Add([]byte("\x00\xff"))

	decoders := storedDecoders()
	f.Fuzz(func(t *testing.T, value []byte) {
		asJSON, jsonErr := decodeStored(decoders, value, "json")
		asYAML, yamlErr := decodeStored(decoders, value, "yaml")
		if !bytes.HasPrefix(value, protobufPrefix) && json.Valid(value) {
			if jsonErr != nil {
				t.Fatalf("valid JSON %q not printed: %v", value, jsonErr)
			}
			if !sameJSON(t, value, []byte(asJSON)) {
				t.Errorf("JSON %q printed as %q", value, asJSON)
			}
		}
		if jsonErr != nil || yamlErr != nil {
			return
		}
		back, err := yaml.YAMLToJSON([]byte(asYAML))
		if err != nil {
			t.Fatalf("printed YAML does not read back: %v\n%s", err, asYAML)
		}
		if !sameJSON(t, []byte(asJSON), back) {
			t.Errorf("YAML reads back as %s, JSON printed %s", back, asJSON)
		}
	})
}

// sameJSON reports whether two JSON documents hold the same value; documents that Go cannot hold
// (numbers out of float64's range) are not compared.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return true
	}
	return reflect.DeepEqual(va, vb)
}
