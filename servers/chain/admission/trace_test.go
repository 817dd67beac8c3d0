package admission

import (
	"testing"

	"k8s.io/apiserver/pkg/admission"
)

// A traced plugin takes part in the phases the plugin does, and no other: the admission chain
// and the metrics decorator ask the decorated plugin, and a validator that answered as a
// mutator too would be run, and measured, in the mutating phase.
func TestTracedKeepsThePhasesOfThePlugin(t *testing.T) {
	for _, tc := range []struct {
		name               string
		plugin             admission.Interface
		mutates, validates bool
	}{
		{"NumericResourceVersion", NewNumericResourceVersion(), true, false},
		{"CertificateSubjectRestriction", NewCertificateSubjectRestriction(), false, true},
		{"Priority", NewPriority(nil), true, true},
	} {
		traced := new(Tracing).Plugins().Decorate(tc.plugin, tc.name)
		_, mutates := traced.(admission.MutationInterface)
		_, validates := traced.(admission.ValidationInterface)
		if mutates != tc.mutates || validates != tc.validates {
			t.Errorf("%s traced: mutates %v, validates %v; the plugin: mutates %v, validates %v",
				tc.name, mutates, validates, tc.mutates, tc.validates)
		}
	}
}
