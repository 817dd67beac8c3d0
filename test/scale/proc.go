package scale

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apichain/apichain/test/soak"
)

// clockTicks is the unit of the CPU times in /proc/<pid>/stat: USER_HZ, 100 on Linux on every
// architecture Go supports (the kernel scales its own tick rate to it).
const clockTicks = 100

// cpuSeconds is the CPU time, user and system, that the processes pids have used so far.
// A process that has gone is left out.
func cpuSeconds(pids []int) float64 {
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// Field 2, the command, is in parentheses and may hold spaces: count from after it.
		// What follows starts at field 3; utime and stime are fields 14 and 15.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += utime + stime
	}
	return float64(ticks) / clockTicks
}

// rssMiB is the resident memory (VmRSS) of the processes pids, summed, in MiB.
func rssMiB(pids []int) float64 {
	var total int64
	for _, pid := range pids {
		if f, err := soak.ReadProc(pid); err == nil {
			total += f.RSSBytes
		}
	}
	return float64(total) / (1 << 20)
}

// tree is pid and all its descendants.
func tree(pid int) []int {
	out := []int{pid}
	for _, c := range soak.Children(pid) {
		out = append(out, tree(c)...)
	}
	return out
}

// named keeps the processes whose command (/proc/<pid>/comm) is one of names: the servers
// among a start script's processes, without the shell and its sleep.
func named(pids []int, names ...string) []int {
	var out []int
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err == nil && slices.Contains(names, strings.TrimSpace(string(b))) {
			out = append(out, pid)
		}
	}
	return out
}
