// Package procnet lists what a process listens on, as `ss -ltnp` and `ss -lxp` show it, from
// Linux's /proc. It sits in test/, outside the chain: tests use it to check that a running
// chain opens the listeners docs/reliability.md says it opens, and no others.
package procnet

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Listeners are the listening sockets of one process.
type Listeners struct {
	TCP  []netip.AddrPort
	Unix []string // socket paths
}

// Of lists the listening sockets that process pid holds open. Sockets are matched to the
// process by inode: /proc/<pid>/fd names them, /proc/<pid>/net/{tcp,tcp6,unix} says which
// listen, and where.
func Of(pid int) (Listeners, error) {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	inodes, err := socketInodes(proc)
	if err != nil {
		return Listeners{}, err
	}
	var l Listeners
	for _, name := range []string{"tcp", "tcp6"} {
		// Columns: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
		err := eachRow(filepath.Join(proc, "net", name), func(f []string) error {
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: TCP_LISTEN
				return nil
			}
			a, err := parseAddr(f[1])
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			l.TCP = append(l.TCP, a)
			return nil
		})
		if err != nil {
			return Listeners{}, err
		}
	}
	// Columns: Num RefCount Protocol Flags Type St Inode Path; flag 0x10000 is __SO_ACCEPTCON.
	err = eachRow(filepath.Join(proc, "net", "unix"), func(f []string) error {
		if len(f) < 8 || !inodes[f[6]] {
			return nil
		}
		if flags, err := strconv.ParseUint(f[3], 16, 32); err == nil && flags&0x10000 != 0 {
			l.Unix = append(l.Unix, f[7])
		}
		return nil
	})
	return l, err
}

func socketInodes(proc string) (map[string]bool, error) {
	fds, err := os.ReadDir(filepath.Join(proc, "fd"))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(proc, "fd", fd.Name()))
		if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return inodes, nil
}

// eachRow calls f with the fields of every line of a /proc/net table but its header.
func eachRow(path string, f func([]string) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Scan() // the header
	for sc.Scan() {
		if err := f(strings.Fields(sc.Text())); err != nil {
			return err
		}
	}
	return sc.Err()
}

// parseAddr reads "0100007F:1F90": the address in hex, as the kernel holds it (32-bit words in
// host byte order, little-endian here), then the port in hex.
func parseAddr(s string) (netip.AddrPort, error) {
	hexAddr, hexPort, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(hexAddr)
	if !ok || err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad port in %q", s)
	}
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(raw[i:], binary.LittleEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), nil
}
