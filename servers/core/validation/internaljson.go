package validation

// Upstream validation runs on kubernetes' *internal* types, which carry no json
// tags. When a field.Error's bad value is a struct, field.Error.ErrorBody
// renders it with json.Marshal, so kube-apiserver's messages show Go field
// names in declaration order with no omitempty, e.g.
//
//	Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}
//
// The v1 types used here have json tags and would render differently. For the
// struct-valued errors ported in this package, the value is wrapped in
// internalJSON, which encodes it the way the untagged internal type would be
// encoded (the internal and v1 structs involved have the same fields in the
// same order). Types with their own MarshalJSON (metav1.Time, intstr.IntOrString,
// resource.Quantity) keep it, as they do upstream, and so do the types of
// k8s.io/apimachinery (ObjectMeta, LabelSelector): the internal types share them, tags
// included.

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

type internalJSON struct {
	v interface{}
}

// internal wraps v so that a field.Error renders it like upstream's internal type.
func internal(v interface{}) interface{} {
	return internalJSON{v: v}
}

var jsonMarshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// MarshalJSON implements json.Marshaler.
func (i internalJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeUntagged(&b, reflect.ValueOf(i.v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeUntagged(b *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		b.WriteString("null")
		return nil
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface && v.Type().Implements(jsonMarshalerType) {
		data, err := json.Marshal(v.Interface())
		if err != nil {
			return err
		}
		b.Write(data)
		return nil
	}
	if v.Kind() == reflect.Struct && sharedType(v.Type()) {
		data, err := json.Marshal(v.Interface())
		if err != nil {
			return err
		}
		b.Write(data)
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return writeUntagged(b, v.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		if err := writeStructFields(b, v, &first); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			data, err := json.Marshal(v.Interface())
			if err != nil {
				return err
			}
			b.Write(data)
			return nil
		}
		fallthrough
	case reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeUntagged(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		type kv struct {
			key string
			val reflect.Value
		}
		var entries []kv
		iter := v.MapRange()
		for iter.Next() {
			entries = append(entries, kv{key: iter.Key().String(), val: iter.Value()})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
		b.WriteByte('{')
		for i, e := range entries {
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(e.key)
			b.Write(key)
			b.WriteByte(':')
			if err := writeUntagged(b, e.val); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	default:
		data, err := json.Marshal(v.Interface())
		if err != nil {
			return err
		}
		b.Write(data)
		return nil
	}
}

// writeStructFields writes exported fields by Go name; embedded structs are
// flattened, as encoding/json does for untagged anonymous fields.
func writeStructFields(b *bytes.Buffer, v reflect.Value, first *bool) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && sharedType(f.Type) {
			// An embedded ObjectMeta: its tagged fields, inlined, the empty ones left out.
			data, err := json.Marshal(v.Field(i).Interface())
			if err != nil {
				return err
			}
			if inner := data[1 : len(data)-1]; len(inner) > 0 {
				if !*first {
					b.WriteByte(',')
				}
				*first = false
				b.Write(inner)
			}
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := writeStructFields(b, v.Field(i), first); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if !*first {
			b.WriteByte(',')
		}
		*first = false
		key, _ := json.Marshal(f.Name)
		b.Write(key)
		b.WriteByte(':')
		if err := writeUntagged(b, v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}

// sharedType: a type of k8s.io/apimachinery (ObjectMeta, LabelSelector, ...), which the
// internal types share with the versioned ones, tags included.
func sharedType(t reflect.Type) bool {
	return strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/")
}
