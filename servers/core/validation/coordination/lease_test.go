package coordination

import (
	"encoding/json"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestLease(t *testing.T) {
	lease := func(spec coordinationv1.LeaseSpec) *coordinationv1.Lease {
		l := &coordinationv1.Lease{}
		validationtest.Decode(t, l, `metadata: {name: l, namespace: ns, resourceVersion: "1"}`)
		l.Spec = spec
		return l
	}
	for _, tc := range []struct {
		name string
		spec coordinationv1.LeaseSpec
		want []string
	}{
		{"valid", coordinationv1.LeaseSpec{HolderIdentity: ptr.To("me"), LeaseDurationSeconds: ptr.To[int32](15)}, nil},
		{"durations", coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](0), LeaseTransitions: ptr.To[int32](-1)}, []string{
			"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
			"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"known strategy", coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.OldestEmulationVersion), PreferredHolder: ptr.To("x")}, nil},
		{"strategy of one's own", coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.CoordinatedLeaseStrategy("example.com/mine"))}, nil},
		{"unknown strategy", coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.CoordinatedLeaseStrategy("Youngest"))}, []string{
			`spec.strategy.strategy: Unsupported value: "Youngest": supported values: "OldestEmulationVersion"`,
		}},
		{"bad custom strategy", coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.CoordinatedLeaseStrategy("example.com/a b"))}, []string{
			`spec.strategy.strategy: Invalid value: "example.com/a b": name part must consist of alphanumeric characters`,
		}},
		{"preferred holder without strategy", coordinationv1.LeaseSpec{PreferredHolder: ptr.To("x")}, []string{
			"spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
		}},
	} {
		validationtest.Expect(t, tc.name, ValidateLease(lease(tc.spec)), tc.want...)
	}
	old := lease(coordinationv1.LeaseSpec{})
	renamed := old.DeepCopy()
	renamed.Name = "m"
	validationtest.Expect(t, "rename", ValidateLeaseUpdate(renamed, old), `metadata.name: Invalid value: "m": field is immutable`)
}

func TestCorpus(t *testing.T) {
	kinds := map[string]validationtest.Kind{"Lease": validationtest.Of(ValidateLease, ValidateLeaseUpdate)}
	validationtest.Corpus(t, kinds, 6, nil)
	l := &coordinationv1.Lease{}
	if err := json.Unmarshal(validationtest.ReadReference(t, "defaulted/lease.json"), l); err != nil {
		t.Fatal(err)
	}
	validationtest.Expect(t, "accepted by kube-apiserver", ValidateLease(l))
	l.ResourceVersion = "1"
	validationtest.Expect(t, "accepted by kube-apiserver, updated", ValidateLeaseUpdate(l.DeepCopy(), l))
}
