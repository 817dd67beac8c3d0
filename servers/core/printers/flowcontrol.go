package printers

import (
	"cmp"
	"slices"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// API Priority and Fairness: flow schemas and priority levels.

// FlowSchema shows whether the priority level it names is missing (its Dangling condition, "?"
// before the configuration controller has looked); a list is in the order the schemas are
// matched in.
var FlowSchema = define("flowschemas.flowcontrol.apiserver.k8s.io", func(fs *flowcontrolv1.FlowSchema) []any {
	distinguisher := "<none>"
	if fs.Spec.DistinguisherMethod != nil {
		distinguisher = string(fs.Spec.DistinguisherMethod.Type)
	}
	missing := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(c.Status)
			break
		}
	}
	return []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, fs.Spec.MatchingPrecedence, distinguisher,
		age(fs.CreationTimestamp), missing}
}).withListMarks(inMatchingOrder)

// inMatchingOrder sorts a list's rows by matching precedence, then by name.
func inMatchingOrder(_ runtime.Object, rows []metav1.TableRow) {
	slices.SortStableFunc(rows, func(a, b metav1.TableRow) int {
		x, y := a.Object.Object.(*flowcontrolv1.FlowSchema), b.Object.Object.(*flowcontrolv1.FlowSchema)
		return cmp.Or(cmp.Compare(x.Spec.MatchingPrecedence, y.Spec.MatchingPrecedence), cmp.Compare(x.Name, y.Name))
	})
}

// PriorityLevelConfiguration shows <none> for what an exempt level does not have.
var PriorityLevelConfiguration = define("prioritylevelconfigurations.flowcontrol.apiserver.k8s.io", func(pl *flowcontrolv1.PriorityLevelConfiguration) []any {
	shares, queues, handSize, queueLength := any("<none>"), any("<none>"), any("<none>"), any("<none>")
	if l := pl.Spec.Limited; l != nil {
		shares = ptr.Deref(l.NominalConcurrencyShares, 0)
		if q := l.LimitResponse.Queuing; q != nil {
			queues, handSize, queueLength = q.Queues, q.HandSize, q.QueueLengthLimit
		}
	}
	return []any{pl.Name, pl.Spec.Type, shares, queues, handSize, queueLength, age(pl.CreationTimestamp)}
})
