package defaults

// TestNestedDefaults checks the walk that defaulter-gen generates: every nested type that has
// defaults gets them, at any depth, in a Pod and in the pod templates of other kinds. Each kind
// is given one of everything (every pointer to a struct set, every list of structs holding one
// element), defaulted once, and each field the defaulting set or changed is listed, as a JSON
// path, in testdata/walk/<kind>.txt. After a deliberate change, rewrite those files with
//
//	go test ./servers/core/defaults -run TestNestedDefaults -update

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var update = flag.Bool("update", false, "rewrite testdata/walk/*.txt with what the defaulting does now")

func TestNestedDefaults(t *testing.T) {
	scheme := newTestScheme(t)
	for name, obj := range map[string]runtime.Object{
		"pod":         &corev1.Pod{},
		"podtemplate": &corev1.PodTemplate{},
		"statefulset": &appsv1.StatefulSet{},
		"cronjob":     &batchv1.CronJob{},
	} {
		t.Run(name, func(t *testing.T) {
			fillEverything(reflect.ValueOf(obj).Elem(), 0)
			before := leaves(t, obj)
			scheme.Default(obj)
			after := leaves(t, obj)
			var changed []string
			for path, value := range after {
				if before[path] != value {
					changed = append(changed, path+": "+value)
				}
			}
			for path := range before {
				if !present(after, path) {
					changed = append(changed, path+": (removed)")
				}
			}
			sort.Strings(changed)
			got := strings.Join(changed, "\n") + "\n"

			file := filepath.Join("testdata", "walk", name+".txt")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("the defaults of a %s differ from %s (-want +got):\n%s", name, file, diff)
			}
		})
	}
}

// fillEverything sets every nil pointer to a struct to a new one and gives every nil list of
// structs one element, all the way down (maps and other values stay as they are).
func fillEverything(v reflect.Value, depth int) {
	if depth > 30 {
		panic("fillEverything: the types nest too deep; is one recursive?")
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillEverything(v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		if v.IsNil() && v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fillEverything(v.Elem(), depth+1)
		}
	case reflect.Slice:
		if v.IsNil() && v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := 0; i < v.Len(); i++ {
			fillEverything(v.Index(i), depth+1)
		}
	}
}

// present tells whether path, or a value under it, is among the leaves.
func present(leaves map[string]string, path string) bool {
	for p := range leaves {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			return true
		}
	}
	return false
}

// leaves flattens the object's JSON form into path: value, one line per value; an empty object
// or list is a value of its own.
func leaves(t *testing.T, obj runtime.Object) map[string]string {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var tree interface{}
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(path string, node interface{})
	walk = func(path string, node interface{}) {
		switch n := node.(type) {
		case map[string]interface{}:
			if len(n) == 0 {
				out[path] = "{}"
			}
			for k, child := range n {
				walk(strings.TrimPrefix(path+"."+k, "."), child)
			}
		case []interface{}:
			if len(n) == 0 {
				out[path] = "[]"
			}
			for i, child := range n {
				walk(fmt.Sprintf("%s[%d]", path, i), child)
			}
		default:
			value, _ := json.Marshal(n)
			out[path] = string(value)
		}
	}
	walk("", tree)
	return out
}
