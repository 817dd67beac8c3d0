package kubelet

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Container logs. The simulated containers run no process, so the kubelet writes their output
// for them, as a container runtime keeps it: one log per run of a container (a restart starts
// a new one, and the last one stays for `kubectl logs --previous`), each line with the time it
// was written. A container writes a line when it starts, the lines of the pod's apichain.io/log
// annotation when it starts and again whenever the annotation changes, and a line when it
// exits or its pod is deleted. Followers (`kubectl logs -f`) get lines as they come and reach
// the end when the container stops: for a container that runs until its pod goes, when the pod
// is deleted. Logs live in memory: a restarted simulator writes them again from the pods'
// status, with the times the status says.
const LogAnnotation = "apichain.io/log"

// timeFormat is how the kubelet stamps a line for ?timestamps=true: RFC 3339, nanoseconds, UTC.
const timeFormat = "2006-01-02T15:04:05.000000000Z07:00"

type logLine struct {
	at   time.Time
	text string
}

// containerLog is the log of one run of a container.
type containerLog struct {
	lines []logLine
	ended bool
	// changed is closed, and replaced, whenever a line is written or the log ends.
	changed chan struct{}
}

func (l *containerLog) write(at time.Time, text string) {
	for line := range strings.Lines(text) {
		l.lines = append(l.lines, logLine{at, strings.TrimSuffix(line, "\n")})
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *containerLog) end(at time.Time, text string) {
	if l.ended {
		return
	}
	l.ended = true
	l.write(at, text)
}

// logBook holds the logs of every container the simulator runs.
type logBook struct {
	mu sync.Mutex
	// pods are the logs of each pod, by container and then by container ID (one per run, at
	// most two kept: the current one and the previous).
	pods map[types.UID]map[string][]*containerLogRun
	// annotations is each pod's apichain.io/log as its containers last wrote it.
	annotations map[types.UID]string
}

type containerLogRun struct {
	id string
	*containerLog
}

func newLogBook() *logBook {
	return &logBook{pods: map[types.UID]map[string][]*containerLogRun{}, annotations: map[types.UID]string{}}
}

// observe writes what pod's containers wrote by the time of its status st (record), and the
// lines of its apichain.io/log annotation, if they changed since it last looked, into the logs
// of its running containers.
func (b *logBook) observe(pod *corev1.Pod, st *corev1.PodStatus, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.record(pod, st)
	text := pod.Annotations[LogAnnotation]
	if old, seen := b.annotations[pod.UID]; seen && old != text && text != "" {
		for _, cs := range st.ContainerStatuses {
			if cs.State.Running != nil {
				b.run(pod, cs.Name, cs.ContainerID, cs.State.Running.StartedAt.Time).write(now, text)
			}
		}
	}
	b.annotations[pod.UID] = text
}

// record writes the start of each container that started by the time of st and the exit of
// each that exited. It can run again at any time.
func (b *logBook) record(pod *corev1.Pod, st *corev1.PodStatus) {
	for _, list := range [][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for _, cs := range list {
			for _, t := range []*corev1.ContainerStateTerminated{cs.LastTerminationState.Terminated, cs.State.Terminated} {
				if t != nil && t.ContainerID != "" {
					b.run(pod, cs.Name, t.ContainerID, t.StartedAt.Time).end(t.FinishedAt.Time, exitLine(cs.Name, t.ExitCode))
				}
			}
			if r := cs.State.Running; r != nil {
				b.run(pod, cs.Name, cs.ContainerID, r.StartedAt.Time)
			}
		}
	}
}

func exitLine(container string, code int32) string {
	return fmt.Sprintf("apichain: container %s exited with code %d", container, code)
}

// run is the log of the run id of a container of pod, begun (with the lines a start writes)
// if it is new. It forgets runs before the previous one, as the kubelet removes their logs.
func (b *logBook) run(pod *corev1.Pod, container, id string, started time.Time) *containerLog {
	byContainer := b.pods[pod.UID]
	if byContainer == nil {
		byContainer = map[string][]*containerLogRun{}
		b.pods[pod.UID] = byContainer
	}
	runs := byContainer[container]
	if i := slices.IndexFunc(runs, func(r *containerLogRun) bool { return r.id == id }); i >= 0 {
		return runs[i].containerLog
	}
	l := &containerLog{changed: make(chan struct{})}
	l.write(started, fmt.Sprintf("apichain: container %s started (image %s) on node %s", container, imageOf(pod, container), pod.Spec.NodeName))
	if text := pod.Annotations[LogAnnotation]; text != "" {
		l.write(started, text)
	}
	runs = append(runs, &containerLogRun{id, l})
	if len(runs) > 2 {
		runs = runs[len(runs)-2:]
	}
	byContainer[container] = runs
	return l
}

func imageOf(pod *corev1.Pod, container string) string {
	if c := containerOf(pod, container); c != nil {
		return c.Image
	}
	return ""
}

// podGone ends the logs of a deleted pod, which ends its followers, and forgets them.
func (b *logBook) podGone(uid types.UID, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for container, runs := range b.pods[uid] {
		runs[len(runs)-1].end(now, fmt.Sprintf("apichain: container %s stopped: its pod was deleted", container))
	}
	delete(b.pods, uid)
	delete(b.annotations, uid)
}

// latest is the log of the last run of a container the book has, or with previous of the run
// before it; nil if it has none.
func (b *logBook) latest(uid types.UID, container string, previous bool) *containerLog {
	b.mu.Lock()
	defer b.mu.Unlock()
	runs := b.pods[uid][container]
	i := len(runs) - 1
	if previous {
		i--
	}
	if i < 0 {
		return nil
	}
	return runs[i].containerLog
}

// running says whether the last run of a container the book has is still running.
func (b *logBook) running(uid types.UID, container string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	runs := b.pods[uid][container]
	return len(runs) > 0 && !runs[len(runs)-1].ended
}

// find is the log of run id, if the book has it.
func (b *logBook) find(uid types.UID, container, id string) *containerLog {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.pods[uid][container] {
		if r.id == id {
			return r.containerLog
		}
	}
	return nil
}

// logOptions are the query of /containerLogs (what kube-apiserver passes on of PodLogOptions).
type logOptions struct {
	follow, previous, timestamps bool
	stderr                       bool // only what the container wrote to stderr: nothing

	since                 time.Time // zero: from the start
	tailLines, limitBytes int64     // -1: all
}

func parseLogOptions(q url.Values, now time.Time) (logOptions, error) {
	o := logOptions{follow: q.Get("follow") == "true", previous: q.Get("previous") == "true",
		timestamps: q.Get("timestamps") == "true", stderr: q.Get("stream") == "Stderr", tailLines: -1, limitBytes: -1}
	for name, dst := range map[string]*int64{"tailLines": &o.tailLines, "limitBytes": &o.limitBytes} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return o, fmt.Errorf("%s: invalid value %q", name, v)
			}
			*dst = n
		}
	}
	if v := q.Get("sinceSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return o, fmt.Errorf("sinceSeconds: invalid value %q", v)
		}
		o.since = now.Add(-time.Duration(n) * time.Second)
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return o, fmt.Errorf("sinceTime: %w", err)
		}
		o.since = t
	}
	return o, nil
}

// containerLogFor is the log /containerLogs reads for container c of pod, or the error the
// kubelet answers with when there is none (kubelet validateContainerLogStatus): the current
// run's, or the last one's while the container waits to be restarted; with previous, the run
// before the current one.
func (s *Simulator) containerLogFor(pod *corev1.Pod, container string, previous bool) (*containerLog, error) {
	// The book first: the simulator writes a run there before it reports it, so it knows the
	// run before its informer's cache shows the pod's new status.
	if l := s.logs.latest(pod.UID, container, previous); l != nil {
		return l, nil
	}
	cs := statusOf(pod, container)
	if cs == nil { // not started yet: the kubelet reports it waiting
		return nil, fmt.Errorf("container %q in pod %q is waiting to start: ContainerCreating", container, pod.Name)
	}
	last := cs.LastTerminationState.Terminated
	var id string
	switch {
	case previous:
		if last == nil || last.ContainerID == "" {
			return nil, fmt.Errorf("previous terminated container %q in pod %q not found", container, pod.Name)
		}
		id = last.ContainerID
	case cs.State.Running != nil:
		id = cs.ContainerID
	case cs.State.Terminated != nil && cs.State.Terminated.ContainerID != "":
		id = cs.State.Terminated.ContainerID
	case last != nil && last.ContainerID != "":
		id = last.ContainerID
	case cs.State.Waiting != nil:
		return nil, fmt.Errorf("container %q in pod %q is waiting to start: %s", container, pod.Name, cs.State.Waiting.Reason)
	default:
		return nil, fmt.Errorf("container %q in pod %q is waiting to start - no logs yet", container, pod.Name)
	}
	// Should the book not have heard of this run yet (a restarted simulator), the status says
	// what it wrote.
	s.logs.mu.Lock()
	s.logs.record(pod, &pod.Status)
	s.logs.mu.Unlock()
	if l := s.logs.find(pod.UID, container, id); l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("container %q in pod %q is waiting to start - no logs yet", container, pod.Name)
}

// serveLogs is GET /containerLogs/<namespace>/<pod>/<container>: the log as text, filtered as
// the query asks, followed until it ends when it asks to follow (or until ctx or the client
// goes).
func (s *Simulator) serveLogs(ctx context.Context, w http.ResponseWriter, r *http.Request, pod *corev1.Pod, container string) {
	o, err := parseLogOptions(r.URL.Query(), time.Now())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	l, err := s.containerLogFor(pod, container, o.previous)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	out := &limitedWriter{w: bufio.NewWriter(w), left: o.limitBytes}
	flush := func() {
		_ = out.w.Flush()
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	s.logs.mu.Lock()
	lines, sent := slices.Clone(l.lines), len(l.lines) // sent: read, whether written out or filtered
	s.logs.mu.Unlock()
	lines = slices.DeleteFunc(lines, func(line logLine) bool { return line.at.Before(o.since) })
	if o.tailLines >= 0 && int64(len(lines)) > o.tailLines {
		lines = lines[int64(len(lines))-o.tailLines:]
	}
	for {
		for _, line := range lines {
			if o.stderr {
				break
			}
			if o.timestamps {
				fmt.Fprint(out, line.at.UTC().Format(timeFormat), " ")
			}
			fmt.Fprintln(out, line.text)
		}
		flush()
		if !o.follow || out.full() {
			return
		}
		s.logs.mu.Lock()
		lines, sent = slices.Clone(l.lines[sent:]), len(l.lines)
		ended, changed := l.ended, l.changed
		s.logs.mu.Unlock()
		if len(lines) > 0 {
			continue
		}
		if ended {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-r.Context().Done():
			return
		}
	}
}

// limitedWriter writes at most left bytes (all when left is -1), cutting the line it ends in,
// as the kubelet does for ?limitBytes.
type limitedWriter struct {
	w    *bufio.Writer
	left int64
}

func (lw *limitedWriter) Write(p []byte) (int, error) {
	if lw.left >= 0 && int64(len(p)) > lw.left {
		p = p[:lw.left]
	}
	if lw.left >= 0 {
		lw.left -= int64(len(p))
	}
	return lw.w.Write(p)
}

func (lw *limitedWriter) full() bool { return lw.left == 0 }

var _ io.Writer = &limitedWriter{}

// statusOf is the status of pod's container of that name, nil if it has none yet.
func statusOf(pod *corev1.Pod, container string) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range list {
			if list[i].Name == container {
				return &list[i]
			}
		}
	}
	return nil
}

// containerOf is pod's container of that name, init and ephemeral containers included.
func containerOf(pod *corev1.Pod, name string) *corev1.Container {
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if pod.Spec.EphemeralContainers[i].Name == name {
			c := corev1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
			return &c
		}
	}
	return nil
}
