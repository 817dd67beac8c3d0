package pods

// The small helpers this package's rules are written with, beside the shared ones in
// servers/core/validation.

import (
	"path"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ifSet runs check on an optional string field that is set.
func ifSet[T ~string](path *field.Path, value T, check func(*field.Path, string) field.ErrorList) field.ErrorList {
	if value == "" {
		return nil
	}
	return check(path, string(value))
}

// optionalOneOf is validation.OneOf for an enum that may be left empty.
func optionalOneOf[T ~string](path *field.Path, value T, allowed ...T) field.ErrorList {
	if value == "" {
		return nil
	}
	if !contains(allowed, value) {
		return field.ErrorList{field.NotSupported(path, value, allowed)}
	}
	return nil
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// setMembers lists the JSON names of the set (non-nil) pointer fields of a union struct, such
// as a VolumeSource or a ProbeHandler, in the struct's field order. Embedded structs (a
// PersistentVolumeSpec's source) are looked into.
func setMembers(union interface{}) []string {
	var names []string
	v := reflect.Indirect(reflect.ValueOf(union))
	for i := 0; i < v.NumField(); i++ {
		f, t := v.Field(i), v.Type().Field(i)
		switch {
		case t.Anonymous && f.Kind() == reflect.Struct:
			names = append(names, setMembers(f.Interface())...)
		case f.Kind() == reflect.Pointer && !f.IsNil():
			name, _, _ := strings.Cut(t.Tag.Get("json"), ",")
			names = append(names, name)
		}
	}
	return names
}

// exactlyOne is the rule of a union: none set is Required at path with missing; every member
// set after the first is Forbidden at its own path with tooMany.
func exactlyOne(path *field.Path, members []string, missing, tooMany string) field.ErrorList {
	if len(members) == 0 {
		return field.ErrorList{field.Required(path, missing)}
	}
	var errs field.ErrorList
	for _, m := range members[1:] {
		errs = append(errs, field.Forbidden(path.Child(m), tooMany))
	}
	return errs
}

// noBacksteps: a path may not contain a ".." element.
func noBacksteps(p *field.Path, value string) field.ErrorList {
	for _, part := range strings.Split(strings.ReplaceAll(value, `\`, "/"), "/") {
		if part == ".." {
			return field.ErrorList{field.Invalid(p, value, "must not contain '..'")}
		}
	}
	return nil
}

// relativePath: a path inside a volume or mount: relative, without "..".
func relativePath(p *field.Path, value string) field.ErrorList {
	if path.IsAbs(value) || strings.HasPrefix(value, `\`) {
		return field.ErrorList{field.Invalid(p, value, "must be a relative path")}
	}
	return noBacksteps(p, value)
}

// fileName: where a key is projected into a volume: a relative path without "..", that does
// not start with ".." either (the kubelet keeps its own "..data" links there).
func fileName(p *field.Path, value string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return validation.Join(relativePath(p, value),
		validation.When(strings.HasPrefix(value, ".."), field.Invalid(p, value, "must not start with '..'")))
}

// fileMode: permission bits of a projected file, 0 to 0777.
func fileMode(p *field.Path, mode int32) field.ErrorList {
	return validation.When(mode < 0 || mode > 0o777, field.Invalid(p, mode, "must be a number between 0 and 0777 (octal), both inclusive"))
}

// invalid turns the messages of a k8s.io/apimachinery check into Invalid errors at path.
func invalid(path *field.Path, value interface{}, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(path, value, m))
	}
	return errs
}

// uniqueLabel: a name that must be given, a DNS label, not yet in seen; it is added to seen.
func uniqueLabel(p *field.Path, name string, seen map[string]bool) field.ErrorList {
	defer func() { seen[name] = true }()
	switch {
	case name == "":
		return field.ErrorList{field.Required(p, "")}
	case seen[name]:
		return field.ErrorList{field.Duplicate(p, name)}
	}
	return validation.DNSLabel(p, name)
}

// uniquePath: a path in a container that must be given, once, and not be one of taken (the
// paths used otherwise, as takenMsg says); it is added to seen.
func uniquePath(p *field.Path, value string, seen, taken map[string]bool, takenMsg string) field.ErrorList {
	defer func() { seen[value] = true }()
	switch {
	case value == "":
		return field.ErrorList{field.Required(p, "")}
	case seen[value]:
		return field.ErrorList{field.Invalid(p, value, "must be unique")}
	case taken[value]:
		return field.ErrorList{field.Invalid(p, value, takenMsg)}
	}
	return nil
}
