package validation

// Reproduces testdata/validation-messages.txt, i.e. what the real kube-apiserver
// v1.37.2 answered to `kubectl apply --dry-run=server` for several bad objects
// (captured by /work/shared/reference/capture.sh), for the core/v1 cases. Each
// input is decoded, defaulted with this project's defaults package (as the
// apiserver does before validation), validated, and turned into the error the
// apiserver returns: apierrors.NewInvalid(GroupKind, name, errs). kubectl prints
// that error's message when there is one cause, and reformats the causes as
// "\n* field: message" lines when there are several (k8s.io/kubectl
// cmd/util.checkErr); both forms are checked. (kubectl also prefixes "The ":
// the apiserver's own Status.Message is `Pod "p" is invalid: ...`.)
//
// Not covered here: the apps/v1 Deployment and batch/v1 Job cases (not core/v1,
// outside this package), and the Secret case, whose error is a base64 decoding
// error raised before validation.

import (
	"fmt"
	"os"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kubectlMessage formats an Invalid StatusError the way kubectl prints it.
func kubectlMessage(err *apierrors.StatusError) string {
	details := err.Status().Details
	s := fmt.Sprintf("The %s %q is invalid", details.Kind, details.Name)
	var causes []string
	for _, c := range details.Causes {
		causes = append(causes, fmt.Sprintf("%s: %s", c.Field, c.Message))
	}
	if len(causes) == 1 {
		return s + ": " + causes[0]
	}
	return s + ": \n* " + strings.Join(causes, "\n* ")
}

// readReference parses testdata/validation-messages.txt into input -> output.
func readReference(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("testdata/validation-messages.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, block := range strings.Split(string(data), "### ")[1:] {
		input, output, _ := strings.Cut(block, "\n")
		out[input] = strings.TrimRight(output, "\n")
	}
	return out
}

func TestValidationMessagesMatchKubeAPIServer(t *testing.T) {
	reference := readReference(t)
	cases := []struct {
		input    string
		kind     string
		newObj   func() runtime.Object
		validate func(runtime.Object) field.ErrorList
	}{
		{
			input:    `{apiVersion: v1, kind: ConfigMap, metadata: {name: Bad_Name, namespace: default}}`,
			kind:     "ConfigMap",
			newObj:   func() runtime.Object { return &v1.ConfigMap{} },
			validate: func(o runtime.Object) field.ErrorList { return ValidateConfigMap(o.(*v1.ConfigMap)) },
		},
		{
			input:    `{apiVersion: v1, kind: Service, metadata: {name: svc, namespace: default}, spec: {ports: [{port: 70000}]}}`,
			kind:     "Service",
			newObj:   func() runtime.Object { return &v1.Service{} },
			validate: func(o runtime.Object) field.ErrorList { return ValidateService(o.(*v1.Service)) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			want, ok := reference[tc.input]
			if !ok {
				t.Fatalf("input not found in testdata/validation-messages.txt: %s", tc.input)
			}
			obj := tc.newObj()
			decodeDefaulted(t, tc.input, obj)
			errs := tc.validate(obj)
			if len(errs) == 0 {
				t.Fatalf("expected errors, got none")
			}
			name := obj.(interface{ GetName() string }).GetName()
			statusErr := apierrors.NewInvalid(schema.GroupKind{Kind: tc.kind}, name, errs)
			if got := kubectlMessage(statusErr); got != want {
				t.Errorf("kubectl message mismatch\n got: %s\nwant: %s", got, want)
			}
			// kube-apiserver's Status.Message is `Kind "name" is invalid: <errors>`;
			// kubectl prints it with a leading "The " (cmd/util.checkErr).
			if len(errs) == 1 && "The "+statusErr.Error() != want {
				t.Errorf("apiserver message mismatch\n got: The %s\nwant: %s", statusErr.Error(), want)
			}
		})
	}
}
