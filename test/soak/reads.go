package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
)

// Lister lists with pagination now and then, as `kubectl get` and informers do (limit, then
// continue), and checks each list: every page of one list is of the same snapshot (the first
// page's resourceVersion) and the objects come in key order, none twice.
type Lister struct {
	Client dynamic.Interface
	Every  time.Duration

	mu                           sync.Mutex
	lists, pages, items, expired int
	problems                     []string
}

// Run lists until ctx is done.
func (l *Lister) Run(ctx context.Context) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	resources := []Target{
		{GVR: ConfigMaps}, {GVR: Secrets, Namespace: Namespaces[0]}, {GVR: Widgets},
		{GVR: Pods, LabelSelector: soakLabel + "=pod"}, {GVR: ReplicaSets, Namespace: Namespaces[1]},
	}
	for ctx.Err() == nil {
		sleep(ctx, l.Every)
		l.list(ctx, resources[rng.IntN(len(resources))], int64(5+rng.IntN(30)))
	}
}

func (l *Lister) list(ctx context.Context, target Target, limit int64) {
	client := target.Client(l.Client)
	opts := target.Options()
	opts.Limit = limit
	var rv, last string
	pages, items := 0, 0
	for {
		list, err := client.List(ctx, opts)
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			// The snapshot was compacted away between two pages: as client-go's pager, a caller
			// lists again from the start. Counted, as it should be rare.
			l.mu.Lock()
			l.expired++
			l.mu.Unlock()
			return
		}
		if err != nil {
			return // the chain is being restarted; the recorder counts the failure
		}
		pages++
		if rv == "" {
			rv = list.GetResourceVersion()
		} else if list.GetResourceVersion() != rv {
			l.problem("%s: page %d at resourceVersion %s, the first at %s", target, pages, list.GetResourceVersion(), rv)
		}
		for _, item := range list.Items {
			key := item.GetNamespace() + "/" + item.GetName()
			if key <= last {
				l.problem("%s: %s after %s: a list's objects come once each, in key order", target, key, last)
			}
			last = key
			items++
		}
		if list.GetContinue() == "" {
			break
		}
		opts.Continue = list.GetContinue()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lists, l.pages, l.items = l.lists+1, l.pages+pages, l.items+items
}

func (l *Lister) problem(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
}

// ListerFigures are the lister's counts.
type ListerFigures struct {
	Lists, Pages, Items, Expired int
	Problems                     []string
}

// Figures returns the lister's counts.
func (l *Lister) Figures() ListerFigures {
	l.mu.Lock()
	defer l.mu.Unlock()
	return ListerFigures{l.lists, l.pages, l.items, l.expired, append([]string(nil), l.problems...)}
}

// Kubectl runs kubectl against the chain now and then, as a person at a terminal does: top of
// nodes and pods, the logs of a pod, a command in one.
type Kubectl struct {
	Kubeconfig string
	Client     dynamic.Interface
	Every      time.Duration
	// Since is the time in the soak; Excused says whether a failure at that time is expected
	// (the chain or the metrics server was restarted just before).
	Since   func() time.Duration
	Excused func(at time.Duration) bool

	runs list[KubectlRun]
}

// KubectlRun is one kubectl command and how it went.
type KubectlRun struct {
	At       time.Duration
	Args     []string
	Took     time.Duration
	Err      string // "" if it succeeded
	Expected bool   // a failure that the moment explains
}

// Run runs a command every Every until ctx is done.
func (k *Kubectl) Run(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		sleep(ctx, k.Every)
		var args []string
		switch i % 4 {
		case 0:
			args = []string{"top", "node"}
		case 1:
			args = []string{"top", "pod", "-A", "-l", soakLabel + "=pod"}
		case 2, 3:
			pod := k.runningPod(ctx)
			if pod == "" {
				continue
			}
			ns, name, _ := strings.Cut(pod, "/")
			if i%4 == 2 {
				args = []string{"logs", "-n", ns, name, "--tail=5"}
			} else {
				args = []string{"exec", "-n", ns, name, "--", "echo", "soak"}
			}
		}
		k.run(ctx, args)
	}
}

func (k *Kubectl) runningPod(ctx context.Context) string {
	list, err := k.Client.Resource(Pods).List(ctx, metav1.ListOptions{LabelSelector: soakLabel + "=pod", FieldSelector: "status.phase=Running"})
	if err != nil || len(list.Items) == 0 {
		return ""
	}
	p := list.Items[rand.IntN(len(list.Items))]
	return p.GetNamespace() + "/" + p.GetName()
}

func (k *Kubectl) run(ctx context.Context, args []string) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	at := k.Since()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--request-timeout=60s"}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.Kubeconfig)
	began := time.Now()
	out, err := cmd.CombinedOutput()
	r := KubectlRun{At: at, Args: args, Took: time.Since(began)}
	if err != nil && ctx.Err() == nil {
		r.Err = strings.TrimSpace(string(out))
		if r.Err == "" {
			r.Err = err.Error()
		}
		// A pod deleted between the list and the command, a pod the metrics server has not
		// scraped twice yet, or a moment just after a deliberate restart.
		r.Expected = k.Excused(at) || strings.Contains(r.Err, "NotFound") || strings.Contains(r.Err, "not found") ||
			strings.Contains(r.Err, "metrics not available yet")
	} else if err != nil {
		return // the soak is ending
	}
	k.runs.add(r)
}

// Runs returns the commands run so far.
func (k *Kubectl) Runs() []KubectlRun { return k.runs.all() }
