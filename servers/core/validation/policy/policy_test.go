package policy

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"PodDisruptionBudget": vt.Of(ValidatePodDisruptionBudget, ValidatePodDisruptionBudgetUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 4, nil) }

func TestAccepted(t *testing.T) { vt.Accepted(t, "pdb.json", kinds["PodDisruptionBudget"]) }

const base = `{metadata: {name: pdb, namespace: ns, resourceVersion: "1"}, spec: {minAvailable: 1, selector: {matchLabels: {app: a}}}}`

func pdb(t *testing.T, doc string) *policyv1.PodDisruptionBudget {
	p := &policyv1.PodDisruptionBudget{}
	vt.Decode(t, p, base, doc)
	return p
}

func TestPodDisruptionBudget(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"valid", `{}`, nil},
		{"a share", `{spec: {minAvailable: 50%, unhealthyPodEvictionPolicy: AlwaysAllow}}`, nil},
		{"any name", `{metadata: {name: Bad_Name}}`, nil},
		{"both", `{spec: {maxUnavailable: 150%, selector: null}}`, []string{
			`spec: Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":"150%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`,
			`spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`}},
		{"negative", `{spec: {minAvailable: -1}}`, []string{"spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"}},
		{"not a share", `{spec: {minAvailable: half}}`, []string{`spec.minAvailable: Invalid value: "half": a valid percent string must be`}},
		{"selector", `{spec: {selector: {matchLabels: {app: -a-}}}}`, []string{`spec.selector.matchLabels: Invalid value: "-a-"`}},
		{"eviction policy", `{spec: {unhealthyPodEvictionPolicy: Sometimes}}`,
			[]string{`spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`}},
	} {
		p := pdb(t, tc.doc)
		vt.Expect(t, tc.name, vt.Merged(t, p, nil, ValidatePodDisruptionBudget(p)), tc.want...)
	}
	stale := pdb(t, `{spec: {selector: {matchExpressions: [{key: app, operator: In, values: [-a-]}]}}}`)
	vt.Expect(t, "a stored invalid label value", ValidatePodDisruptionBudgetUpdate(stale.DeepCopy(), stale))
}

func TestPodDisruptionBudgetStatus(t *testing.T) {
	old := pdb(t, `{}`)
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"valid", `{status: {disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, conditions: [
			{type: DisruptionAllowed, status: "True", reason: SufficientPods, lastTransitionTime: "2025-01-01T00:00:00Z"}]}}`, nil},
		{"counts", `{status: {disruptionsAllowed: -1, expectedPods: -2}}`, []string{
			"status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0",
			"status.expectedPods: Invalid value: -2: must be greater than or equal to 0"}},
		{"condition", `{status: {conditions: [{type: DisruptionAllowed, status: Maybe, reason: x, lastTransitionTime: "2025-01-01T00:00:00Z"}]}}`,
			[]string{`status.conditions[0].status: Unsupported value: "Maybe"`}},
	} {
		p := pdb(t, tc.doc)
		vt.Expect(t, tc.name, vt.Merged(t, p, old, ValidatePodDisruptionBudgetStatusUpdate(p, old)), tc.want...)
	}
}

func TestEviction(t *testing.T) {
	e := &policyv1.Eviction{}
	vt.Decode(t, e, `{metadata: {name: p, namespace: ns}, deleteOptions: {gracePeriodSeconds: 0}}`)
	vt.Expect(t, "valid", ValidateEviction(e))
	vt.Decode(t, e, `{deleteOptions: {ignoreStoreReadErrorWithClusterBreakingPotential: true}}`)
	vt.Expect(t, "unreadable", ValidateEviction(e),
		"deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: can not be set for pod eviction, try after removing the option")
}
