package chaintest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// storedObject is what Reset needs of an object it read from etcd: its kind and metadata, and
// the resource that serves it.
type storedObject struct {
	key     string
	kind    schema.GroupVersionKind
	meta    metav1.ObjectMeta
	mapping *meta.RESTMapping
	// proto is the object's own protobuf message, for a built-in kind (nil for JSON).
	proto []byte
}

func (o *storedObject) String() string {
	if o.meta.Namespace == "" {
		return fmt.Sprintf("%s %s", o.kind.Kind, o.meta.Name)
	}
	return fmt.Sprintf("%s %s/%s", o.kind.Kind, o.meta.Namespace, o.meta.Name)
}

// The chain's servers store built-in kinds as Kubernetes protobuf (this prefix, then a
// runtime.Unknown wrapping the object) and custom resources as JSON.
var protobufPrefix = []byte("k8s\x00")

// decodeStored reads the kind and metadata of the object stored under key, without a scheme:
// in protobuf, every Kubernetes object's field 1 is its ObjectMeta.
func decodeStored(key string, value []byte) (*storedObject, error) {
	o := &storedObject{key: key}
	if rest, ok := bytes.CutPrefix(value, protobufPrefix); ok {
		var u runtime.Unknown
		if err := u.Unmarshal(rest); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		o.kind, o.proto = schema.FromAPIVersionAndKind(u.APIVersion, u.Kind), u.Raw
		metaBytes, err := protobufField(u.Raw, 1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if err := o.meta.Unmarshal(metaBytes); err != nil {
			return nil, fmt.Errorf("%s: metadata: %w", key, err)
		}
		return o, nil
	}
	var obj struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(value, &obj); err != nil {
		return nil, fmt.Errorf("%s: neither protobuf nor JSON: %w", key, err)
	}
	o.kind, o.meta = obj.GroupVersionKind(), obj.Metadata
	return o, nil
}

// protobufField returns the bytes of the length-delimited field num of a protobuf message.
func protobufField(msg []byte, num protowire.Number) ([]byte, error) {
	for len(msg) > 0 {
		n, typ, l := protowire.ConsumeTag(msg)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		msg = msg[l:]
		if n == num && typ == protowire.BytesType {
			b, l := protowire.ConsumeBytes(msg)
			if l < 0 {
				return nil, protowire.ParseError(l)
			}
			return b, nil
		}
		l = protowire.ConsumeFieldValue(n, typ, msg)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		msg = msg[l:]
	}
	return nil, fmt.Errorf("no field %d", num)
}
