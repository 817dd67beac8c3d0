package kubelet

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// hostSystem is what the host node reports about this machine: cAdvisor's machine info and the
// kubelet's node info, read from /proc and /etc as they read them.
type hostSystem struct {
	hostname, nodeName string
	cpus               int
	memTotal           int64 // bytes
	kernel, osImage    string
	machineID, bootID  string
	systemUUID         string
	// proc is where /proc is; tests point it elsewhere.
	proc string
}

func readHostSystem() (*hostSystem, error) {
	h, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	sys := &hostSystem{hostname: h, nodeName: nodeNameFor(h), cpus: runtime.NumCPU(), proc: "/proc"}
	if sys.memTotal, err = sys.meminfo("MemTotal"); err != nil {
		return nil, err
	}
	if _, err := sys.cpuSeconds(); err != nil {
		return nil, err
	}
	sys.kernel = firstLine(sys.proc+"/sys/kernel/osrelease", "unknown")
	sys.osImage = osImage("/etc/os-release")
	sys.bootID = firstLine(sys.proc+"/sys/kernel/random/boot_id", "")
	sys.machineID = firstLine("/etc/machine-id", hashHex("machine:"+h, 32))
	// product_uuid is readable by root only; like cAdvisor, do without it otherwise.
	sys.systemUUID = firstLine("/sys/class/dmi/id/product_uuid", uuidFormat(sys.machineID))
	return sys, nil
}

// nodeNameFor makes a hostname a node name the way a kubelet does (lower-cased), and a valid
// DNS-1123 subdomain, which hostnames need not be: other characters become '-', and each
// dot-separated label loses the dashes it would otherwise begin or end with.
func nodeNameFor(hostname string) string {
	h := strings.ToLower(strings.TrimSpace(hostname))
	h = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, h)
	var labels []string
	for l := range strings.SplitSeq(h, ".") {
		if l = strings.Trim(l, "-"); l != "" {
			labels = append(labels, l)
		}
	}
	name := strings.Join(labels, ".")
	if len(name) > validation.DNS1123SubdomainMaxLength {
		name = strings.TrimRight(name[:validation.DNS1123SubdomainMaxLength], "-.")
	}
	if len(validation.IsDNS1123Subdomain(name)) != 0 {
		return "localhost"
	}
	return name
}

// cpuSeconds is the CPU time the machine has spent busy, in core-seconds: the first line of
// /proc/stat without idle and iowait (guest time is already counted in user time). This is
// what cAdvisor reports for the root cgroup, within a rounding error.
func (h *hostSystem) cpuSeconds() (float64, error) {
	f, err := os.Open(h.proc + "/stat")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("reading %s/stat: %w", h.proc, err)
	}
	return parseCPULine(line)
}

// userHZ is the unit of /proc/stat: USER_HZ, 100 on every Linux architecture Go supports.
const userHZ = 100

func parseCPULine(line string) (float64, error) {
	fields := strings.Fields(line)
	if len(fields) < 8 || fields[0] != "cpu" {
		return 0, fmt.Errorf("unexpected /proc/stat line %q", line)
	}
	var busy uint64
	// user nice system idle iowait irq softirq steal ...
	for i, f := range fields[1:] {
		if i == 3 || i == 4 || i > 7 { // idle, iowait; guest and guest_nice are inside user and nice
			continue
		}
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected /proc/stat line %q: %w", line, err)
		}
		busy += v
	}
	return float64(busy) / userHZ, nil
}

// workingSet is the machine's memory working set as the kubelet's eviction manager sees it:
// MemTotal - MemAvailable.
func (h *hostSystem) workingSet() (int64, error) {
	total, err := h.meminfo("MemTotal")
	if err != nil {
		return 0, err
	}
	avail, err := h.meminfo("MemAvailable")
	if err != nil {
		return 0, err
	}
	return total - avail, nil
}

// meminfo returns one field of /proc/meminfo, in bytes.
func (h *hostSystem) meminfo(field string) (int64, error) {
	data, err := os.ReadFile(h.proc + "/meminfo")
	if err != nil {
		return 0, err
	}
	return parseMeminfo(data, field)
}

func parseMeminfo(data []byte, field string) (int64, error) {
	for line := range bytes.Lines(data) {
		name, rest, ok := strings.Cut(string(line), ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("meminfo %s: %w", field, err)
		}
		if len(f) > 1 && f[1] == "kB" {
			v *= 1024
		}
		return v, nil
	}
	return 0, fmt.Errorf("meminfo: no %s", field)
}

// osImage is PRETTY_NAME from os-release, as the kubelet reports it.
func osImage(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return runtime.GOOS
	}
	for line := range bytes.Lines(data) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "PRETTY_NAME="); ok {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return strings.Trim(v, `"'`)
		}
	}
	return runtime.GOOS
}

func firstLine(path, fallback string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fallback
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return fallback
	}
	return line
}

// hashHex is n hex digits derived from s: stable identifiers for simulated things.
func hashHex(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

// uuidFormat writes 32 hex digits as a UUID.
func uuidFormat(h string) string {
	if len(h) < 32 {
		h = hashHex(h, 32)
	}
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
