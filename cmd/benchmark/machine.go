package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes where the figures were measured: they mean little without it.
type Machine struct {
	Date          string     `json:"date"`       // RFC 3339, local time of the machine
	Hostname      string     `json:"hostname"`   // as the kernel names it
	CPUModel      string     `json:"cpu_model"`  // /proc/cpuinfo "model name"
	Cores         int        `json:"cores"`      // logical CPUs the Go runtime sees
	GoVersion     string     `json:"go_version"` // runtime.Version()
	OS            string     `json:"os"`         // GOOS/GOARCH
	LoadAvgStart  [3]float64 `json:"load_average_at_start"`
	LoadAvgEnd    [3]float64 `json:"load_average_at_end"`
	MemTotalMiB   int        `json:"mem_total_mib"`
	MariaDBServer string     `json:"mariadb_version,omitempty"`
}

// describeMachine reads the machine's facts now (load average at start included).
func describeMachine() Machine {
	host, _ := os.Hostname()
	return Machine{
		Date:         time.Now().Format(time.RFC3339),
		Hostname:     host,
		CPUModel:     procField("/proc/cpuinfo", "model name"),
		Cores:        runtime.NumCPU(),
		GoVersion:    runtime.Version(),
		OS:           runtime.GOOS + "/" + runtime.GOARCH,
		LoadAvgStart: loadAverage(),
		MemTotalMiB:  procKiB("/proc/meminfo", "MemTotal") / 1024,
	}
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute figures (zeros where unreadable).
func loadAverage() [3]float64 {
	var out [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return out
	}
	for i, f := range strings.Fields(string(b)) {
		if i >= 3 {
			break
		}
		out[i], _ = strconv.ParseFloat(f, 64)
	}
	return out
}

// procField returns the value of the first "key : value" line of a /proc file ("" if none).
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// procKiB reads a "Key:   123 kB" figure of a /proc file (/proc/meminfo, /proc/PID/status) in
// KiB; 0 when absent or unreadable (the process has exited).
func procKiB(path, key string) int {
	v := procField(path, key)
	n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(v, "kB")))
	return n
}
